#pragma once
// The kernels of the designs a GPU allows beyond the seed's: `fused` (a
// persistent kernel whose every team runs all stages on its slice), `pool`
// (a persistent pool of teams that takes the released chunks' pieces in
// order) and `graph` (one graph launch per chunk, its completion raised in
// host memory).
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
  std::uint64_t* relay;            // device memory, one per group: the chunk number its first team saw rung, or shutdown_bit
  std::uint64_t* failure;          // mapped: 1 + the team that gave up waiting, else no_failure
  std::uint64_t timeout_ns;

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
        const Wait wait = b == 0 ? wait_past<true>(doorbells + slot * flag_stride, c, timeout_ns)
                                 : wait_past<false>(relay + group, c, timeout_ns);
        if (b == 0 && teams_per_group > 1) store_release_device(relay + group, wait == Wait::go ? c + 1 : shutdown_bit);
        if (wait == Wait::timed_out) store_release_system(failure, failed_team);
        go = wait == Wait::go;
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

// Launched once per pass: a pool of `workers` teams, a watcher team and a
// flagger team. The watcher polls the ring's doorbells over PCIe in chunk
// order and publishes the count of released chunks in device memory. Each
// worker takes the next piece (of `piece_quads`) of the released chunks, first
// come first served, from a counter in device memory, reads it from mapped
// input, runs every stage, writes mapped output and counts the piece done in
// device memory. The flagger waits, in chunk order, for each chunk's pieces
// to be counted and raises the slot's done flag in host memory.
//
// Only the flagger waits for writes to reach the host (a system-scope release,
// a PCIe round trip behind every write queued before it); a worker's release
// is device-scope, so it takes its next piece at once. The pool is as large
// as keeps PCIe busy both ways and no larger, whatever the depth: every chunk
// in flight shares it, so a chunk's latency follows the bytes ahead of it.
struct PoolStream {
  int stages;
  int rounds;
  int slots;
  int workers;
  std::uint64_t chunks;
  std::uint64_t chunk_quads;
  std::uint64_t total_quads;
  std::uint64_t piece_quads;
  std::uint64_t pieces_per_chunk;
  const Quad* input;               // mapped host memory
  Quad* output;                    // mapped host memory
  const std::uint64_t* doorbells;  // mapped, flag_stride apart: the latest chunk number (c + 1) released into the slot, or shutdown_bit
  std::uint64_t* done;             // mapped, flag_stride apart: the latest chunk number finished in the slot
  std::uint64_t* released;         // device memory: chunks released so far, or shutdown_bit
  std::uint64_t* next_piece;       // device memory: pieces taken so far
  std::uint64_t* pieces_done;      // device memory, per slot: pieces finished there this pass
  std::uint64_t* failure;          // mapped: 1 + the team that gave up waiting, else no_failure
  std::uint64_t timeout_ns;

  FERRY_HD void watch(std::uint64_t failed_team) const {
    for (std::uint64_t c = 0; c < chunks; ++c) {
      const Wait wait = wait_past<true>(doorbells + (c % static_cast<std::uint64_t>(slots)) * flag_stride, c, timeout_ns);
      if (wait == Wait::timed_out) store_release_system(failure, failed_team);
      store_release_device(released, wait == Wait::go ? c + 1 : shutdown_bit);
      if (wait != Wait::go) return;
    }
  }

  FERRY_HD void raise_flags(std::uint64_t failed_team) const {
    for (std::uint64_t c = 0; c < chunks; ++c) {
      const std::uint64_t slot = c % static_cast<std::uint64_t>(slots);
      const std::uint64_t finished = (c / static_cast<std::uint64_t>(slots) + 1) * pieces_per_chunk;
      std::uint64_t since = 0;
      for (int polls = 1; load_acquire_device(pieces_done + slot) < finished; ++polls) {
        if (polls % polls_per_clock_read == 0) {
          if (load_relaxed_device(released) & shutdown_bit) return;
          if (out_of_time(since, timeout_ns)) {
            store_release_system(failure, failed_team);
            return;
          }
        }
        spin_pause();
      }
      // System scope: every worker's writes of the chunk reach the host before its flag.
      store_release_system(done + slot * flag_stride, c + 1);
    }
  }

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    const std::uint64_t failed_team = 1 + static_cast<std::uint64_t>(team.index());
    if (team.index() >= workers) {  // one thread is enough for either job
      if (team.rank() == 0) team.index() == workers ? watch(failed_team) : raise_flags(failed_team);
      return;
    }
    auto* taken = reinterpret_cast<std::uint64_t*>(team.shared());
    const StageRange all{0, stages, rounds};
    for (;;) {
      bool go = false;
      if (team.rank() == 0) {
        const std::uint64_t piece = increment_relaxed_device(next_piece);
        *taken = piece;
        const std::uint64_t c = piece / pieces_per_chunk;
        if (c < chunks) {
          const Wait wait = wait_past<false>(released, c, timeout_ns);
          if (wait == Wait::timed_out) store_release_system(failure, failed_team);
          go = wait == Wait::go;
        }
      }
      if (!team.sync_or(go)) return;
      const std::uint64_t piece = *taken;
      const std::uint64_t c = piece / pieces_per_chunk;
      const std::uint64_t chunk_end = (c + 1) * chunk_quads < total_quads ? (c + 1) * chunk_quads : total_quads;
      const std::uint64_t lo = c * chunk_quads + (piece % pieces_per_chunk) * piece_quads;
      if (lo < chunk_end) move_slice(team, input, output, {lo, lo + piece_quads < chunk_end ? lo + piece_quads : chunk_end}, all);
      team.sync();  // every thread's writes, and its read of *taken, before the count
      if (team.rank() == 0) {
        fence_release_device();
        increment_relaxed_device(pieces_done + c % static_cast<std::uint64_t>(slots));
      }
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
void launch_pool(Stream& stream, const PoolStream& kernel);
int pool_resident_teams(Stream& stream);
void launch_raise_slot_flag(Stream& stream, const RaiseSlotFlag& kernel);

}  // namespace ferry::stream
