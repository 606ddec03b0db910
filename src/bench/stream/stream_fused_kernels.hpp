#pragma once
// The kernels of the two designs a GPU allows beyond the seed's: `fused` (a
// persistent kernel whose every team runs all stages on its slice) and
// `graph` (one graph launch per chunk, its completion raised in host memory).
#include <cstdint>

#include "bench/stream/stream_kernels.hpp"

namespace ferry::stream {

// Launched once per pass. A ring of `slots` slots, each with a doorbell in
// mapped host memory and a done flag per team: chunk c goes to slot c % slots
// and to group c % groups of the teams (a group per slot, unless the device
// cannot hold that many). The host rings the slot's doorbell with c + 1; each
// team of the group reads its slice of the chunk from mapped input, runs
// every stage in registers, writes mapped output and raises its done flag for
// the slot to c + 1; the chunk is back once every team's flag says so. No
// hand-off between teams, no device buffer: one PCIe read and one PCIe write
// per word, as zerocopy, with neither a launch nor a stream sync per chunk.
struct FusedStream {
  int stages;
  int rounds;
  int slots;
  int groups;  // at most slots
  int teams_per_group;
  std::uint64_t chunk_quads;
  std::uint64_t total_quads;
  const Quad* input;               // mapped host memory
  Quad* output;                    // mapped host memory
  const std::uint64_t* doorbells;  // mapped, flag_stride apart: the latest chunk number (c + 1) released into the slot, or shutdown_bit
  std::uint64_t* done;             // mapped, flag_stride apart, per slot and team: the latest chunk number the team finished there
  std::uint64_t* relay;            // device memory, one per group: the doorbell as the group's first team saw it
  std::uint64_t* failure;          // mapped: 1 + the team that gave up waiting, else no_failure
  std::uint64_t timeout_ns;

  static constexpr int polls_per_clock_read = 64;

  // Waits for a doorbell (or the relay of one) to reach chunk number c + 1:
  // the value seen, with shutdown_bit set at shutdown or on timeout (which it records).
  template <bool from_host>
  FERRY_HD std::uint64_t wait_for(const std::uint64_t* word, std::uint64_t c, std::uint64_t failed_team) const {
    std::uint64_t since = 0;
    for (int polls = 1;; ++polls) {
      // Relaxed polls: an acquire on every poll of host memory fences the
      // multiprocessor against its teams' writes to the host, once per poll.
      const std::uint64_t value = from_host ? load_relaxed_system(word) : load_relaxed_device(word);
      if ((value & ~shutdown_bit) > c || (value & shutdown_bit)) {
        fence_acquire_system();  // the chunk's reads come after the doorbell
        return value;
      }
      if (polls % polls_per_clock_read == 0) {
        const std::uint64_t now = timeout_clock_ns();
        if (since == 0) since = now;
        if (now - since > timeout_ns) {
          store_release_system(failure, failed_team);
          return shutdown_bit;
        }
      }
      spin_pause();
    }
  }

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    const int group = team.index() / teams_per_group;
    const int b = team.index() % teams_per_group;
    const std::uint64_t failed_team = 1 + static_cast<std::uint64_t>(team.index());
    const StageRange all{0, stages, rounds};
    for (std::uint64_t c = static_cast<std::uint64_t>(group);; c += static_cast<std::uint64_t>(groups)) {
      const std::uint64_t slot = c % static_cast<std::uint64_t>(slots);
      // Only the group's first team polls host memory, across PCIe; it relays
      // what it saw through L2 to the others, so polls never crowd the data.
      bool go = false;
      if (team.rank() == 0) {
        std::uint64_t seen;
        if (b == 0) {
          seen = wait_for<true>(doorbells + slot * flag_stride, c, failed_team);
          if (teams_per_group > 1) store_release_device(relay + group, seen);
        } else {
          seen = wait_for<false>(relay + group, c, failed_team);
        }
        go = (seen & ~shutdown_bit) > c;
      }
      if (!team.sync_or(go)) return;
      const std::uint64_t first = c * chunk_quads;
      const std::uint64_t quads = total_quads - first < chunk_quads ? total_quads - first : chunk_quads;
      move_slice(team, input + first, output + first, team_slice(quads, b, teams_per_group), all);
      team.sync();
      // Each team raises its own flag (release at system scope: its writes to
      // the host come first) and the host reads the group's flags: no count
      // of teams on the device, whose system-scope atomic costs a microsecond.
      if (team.rank() == 0) store_release_system(done + (slot * teams_per_group + b) * flag_stride, c + 1);
    }
  }
};

// The graph design's last node: after the chunk's copy back, one thread
// counts the slot's chunks and raises the count in host memory, which the
// host polls instead of syncing the stream.
struct RaiseSlotFlag {
  std::uint64_t* count;  // device memory
  std::uint64_t* flag;   // mapped
  FERRY_HD void operator()(std::int64_t) const {
    const std::uint64_t next = *count + 1;
    *count = next;
    store_release_system(flag, next);
  }
};

// Enqueue the kernels above (stream_launch.cpp).
void launch_fused(Stream& stream, const FusedStream& kernel);
int fused_resident_teams(Stream& stream);
void launch_raise_slot_flag(Stream& stream, const RaiseSlotFlag& kernel);

}  // namespace ferry::stream
