#pragma once
// The kernels of the designs a GPU allows beyond the seed's: `fused` (a
// persistent kernel whose every team runs all stages on its slice), `pool`
// (a persistent pool of teams among whose threads the stream is dealt) and
// `graph` (one graph launch per chunk, its completion raised in host memory).
#include <cstdint>

#include "bench/common/count_to_host.hpp"
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
  const Quad* input;  // mapped host memory
  Quad* output;       // mapped host memory
  const std::uint64_t*
      doorbells;  // mapped, flag_stride apart: the latest chunk number (c + 1) released into the slot, or shutdown_bit
  std::uint64_t* done;  // mapped, flag_stride apart, per slot and team: the latest chunk number the team finished there
  std::uint64_t* relay;    // device memory, one per group: the chunk number its first team saw rung, or shutdown_bit
  std::uint64_t* failure;  // mapped: 1 + the team that gave up waiting, else no_failure
  std::uint64_t timeout_ns;

  // Quads a thread reads before it writes them while other chunks are in
  // flight: a team's 16 KiB slice then goes in two waves, the second's reads
  // crossing PCIe while the first's writes do. A chunk alone reads its whole
  // slice at once, since each wave costs it a round trip. Measured on an H100
  // (docs/stream.md, "What was tried"), against every quad at
  // once: 256 KiB x 4 took 36.8 us against 39.5-40.7, 64 KiB x 8 20.2-20.3
  // against 21.0-21.3; alone, 64 KiB took 10.8 us against 9.3-9.5.
  static constexpr int quads_in_flight_among_others = 2;

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
      const Slice slice = team_slice(quads, b, teams_per_group);
      if (slots > 1) {
        move_slice<quads_in_flight_among_others>(team, input + first, output + first, slice, all);
      } else {
        move_slice(team, input + first, output + first, slice, all);
      }
      team.sync();
      // Each team raises its own flag (release at system scope: its writes to
      // the host come first) and the host reads the group's flags: no count
      // of teams on the device, whose system-scope atomic costs a microsecond.
      if (team.rank() == 0) store_release_system(done + (slot * teams_per_group + b) * flag_stride, c + 1);
    }
  }
};

// Launched once per pass: a pool of `workers` teams, a watcher team and a
// flagger team. The stream is dealt to the workers' threads like cards: quad
// g goes to thread g % lanes (lanes = workers x threads per team), so every
// chunk is spread over the workers, and a chunk smaller than the pool over
// the next workers in turn. No one takes work at run time.
// - The watcher reads every ring slot's doorbell at once over PCIe (one round
//   trip whatever the depth) and publishes, in device memory, how many chunks
//   are released.
// - A worker waits for the next chunk that holds quads of its own, moves
//   them one quad a thread at a time (quads_in_flight) and publishes, with a
//   device-scope release, the next such chunk: every chunk before it is done
//   as far as this worker goes.
// - The flagger raises the done flag of every chunk that all workers are
//   past, behind one system-scope fence: only it waits for writes to reach
//   the host.
// The pool is as large as keeps PCIe busy both ways and no larger, whatever
// the depth: every chunk in flight shares it.
struct PoolStream {
  int stages;
  int rounds;
  int slots;
  int workers;
  std::uint64_t chunks;
  std::uint64_t chunk_quads;
  std::uint64_t total_quads;
  const Quad* input;  // mapped host memory
  Quad* output;       // mapped host memory
  const std::uint64_t*
      doorbells;  // mapped, flag_stride apart: the latest chunk number (c + 1) released into the slot, or shutdown_bit
  std::uint64_t* done;      // mapped, flag_stride apart: the latest chunk number finished in the slot
  std::uint64_t* released;  // device memory: chunks released so far, or shutdown_bit
  std::uint64_t* past;  // device memory, per worker flag_stride apart: the worker is done with every chunk before this
  std::uint64_t* failure;  // mapped: 1 + the team that gave up waiting, else no_failure
  std::uint64_t timeout_ns;

  // Reads this many doorbells before it looks at any: a load whose value is
  // used at once holds back the issue of the next.
  static constexpr int reads_at_once = 8;

  // The same for the workers' counts, which the flagger reads for every
  // chunk: all 32 in one round trip to L2, not four in a row. On an H100
  // (docs/stream.md, "What was tried") 256 KiB x 2 went from
  // 20.0-20.6 us to 19.2-19.7 and 64 KiB x 1 from 11.3-11.9 to 11.0-11.1;
  // the 4 KiB chunk gained only 0.2 us, so the 3 us it lost when the pool
  // grew to 32 workers are spent elsewhere.
  static constexpr int counts_at_once = 32;

  // Quads each worker thread reads before it writes them. With 32 workers
  // (8192 threads) that is 128 KiB in flight, about what the link moves in
  // one loaded read round trip, and a chunk of 256 KiB goes in two waves:
  // the second's reads cross PCIe while the first's writes do. Reading a
  // thread's whole share of a chunk at once (up to 8 quads, 16 workers)
  // left one direction idle while the other moved, and held up to 256 KiB
  // of reads in the link, behind which every doorbell poll and fence waited
  // (docs/stream.md, "What was tried": on an H100, 256 KiB x 4
  // moved 30.6 GB/s in 33.2-33.7 us that way, 35.7-36.4 in 26.9-27.1 us
  // this way).
  static constexpr int quads_in_flight = 1;

  FERRY_HD std::uint64_t chunk_end(std::uint64_t c) const {
    return (c + 1) * chunk_quads < total_quads ? (c + 1) * chunk_quads : total_quads;
  }

  // Whether chunk c holds a quad dealt to lanes [first, first + count) of `lanes`.
  FERRY_HD bool has_quads(std::uint64_t c, std::uint64_t first, std::uint64_t count, std::uint64_t lanes) const {
    const std::uint64_t length = chunk_end(c) - c * chunk_quads;
    if (length >= lanes) return true;
    const std::uint64_t from = (c * chunk_quads) % lanes,
                        to = from + length;  // the chunk's lanes: [from, to) mod lanes
    return (from < first + count && first < to) || (to > lanes && first < to - lanes);
  }

  // The first chunk from c on that holds a quad of worker `worker`'s `team_size` lanes (chunks if none).
  FERRY_HD std::uint64_t next_with_quads(std::uint64_t c, int worker, int team_size) const {
    const auto count = static_cast<std::uint64_t>(team_size);
    const std::uint64_t lanes = static_cast<std::uint64_t>(workers) * count;
    while (c < chunks && !has_quads(c, static_cast<std::uint64_t>(worker) * count, count, lanes)) ++c;
    return c;
  }

  FERRY_HD void watch(std::uint64_t failed_team) const {
    const auto ring = static_cast<std::uint64_t>(slots);
    std::uint64_t since = 0;
    for (std::uint64_t c = 0, polls = 1; c < chunks; ++polls) {
      std::uint64_t bell[reads_at_once];
      FERRY_UNROLL
      for (int k = 0; k < reads_at_once; ++k) {
        const auto at = static_cast<std::uint64_t>(k);
        bell[k] = at < ring && c + at < chunks ? load_relaxed_system(doorbells + ((c + at) % ring) * flag_stride) : 0;
      }
      std::uint64_t now = c;
      FERRY_UNROLL
      for (int k = 0; k < reads_at_once; ++k) {
        const auto at = static_cast<std::uint64_t>(k);
        if (now == c + at && (bell[k] & ~shutdown_bit) > c + at) now = c + at + 1;
      }
      if (now > c) {
        fence_acquire_system();
        store_release_device(released, now);
        c = now;
        since = 0;
        polls = 0;
        continue;
      }
      const bool shut_down = (bell[0] & shutdown_bit) != 0;
      const bool timed_out = !shut_down && polls % polls_per_clock_read == 0 && out_of_time(since, timeout_ns);
      if (timed_out) store_release_system(failure, failed_team);
      if (shut_down || timed_out) {
        store_release_device(released, shutdown_bit);
        return;
      }
      spin_pause();
    }
  }

  // The least of the workers' counts: every chunk before it is done.
  FERRY_HD std::uint64_t all_past() const {
    std::uint64_t least = chunks;
    for (int w0 = 0; w0 < workers; w0 += counts_at_once) {
      std::uint64_t seen[counts_at_once];
      FERRY_UNROLL
      for (int k = 0; k < counts_at_once; ++k)
        seen[k] =
            w0 + k < workers ? load_relaxed_device(past + static_cast<std::uint64_t>(w0 + k) * flag_stride) : chunks;
      FERRY_UNROLL
      for (int k = 0; k < counts_at_once; ++k) least = seen[k] < least ? seen[k] : least;
    }
    return least;
  }

  FERRY_HD void raise_flags(std::uint64_t failed_team) const {
    std::uint64_t since = 0;
    for (std::uint64_t c = 0, polls = 1; c < chunks; ++polls) {
      if (const std::uint64_t least = all_past(); least > c) {
        fence_acquire_device();
        fence_release_system();  // every worker's writes of chunks [c, least) reach the host before their flags
        for (; c < least; ++c)
          store_relaxed_system(done + (c % static_cast<std::uint64_t>(slots)) * flag_stride, c + 1);
        since = 0;
        polls = 0;
        continue;
      }
      if (polls % polls_per_clock_read == 0) {
        if (load_relaxed_device(released) & shutdown_bit) return;
        if (out_of_time(since, timeout_ns)) {
          store_release_system(failure, failed_team);
          return;
        }
      }
      spin_pause();
    }
  }

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    const std::uint64_t failed_team = 1 + static_cast<std::uint64_t>(team.index());
    if (team.index() >= workers) {  // one thread is enough for either job
      if (team.rank() == 0) team.index() == workers ? watch(failed_team) : raise_flags(failed_team);
      return;
    }
    std::uint64_t* own_past = past + static_cast<std::uint64_t>(team.index()) * flag_stride;
    const std::uint64_t lanes = static_cast<std::uint64_t>(workers) * static_cast<std::uint64_t>(team.size());
    const std::uint64_t lane = static_cast<std::uint64_t>(team.index()) * team.size() + team.rank();
    const StageRange all{0, stages, rounds};
    std::uint64_t c = next_with_quads(0, team.index(), team.size());
    if (team.rank() == 0) store_relaxed_device(own_past, c);  // nothing moved yet: no ordering needed
    while (c < chunks) {
      bool go = false;
      if (team.rank() == 0) {
        const Wait wait = wait_past<false>(released, c, timeout_ns);
        if (wait == Wait::timed_out) store_release_system(failure, failed_team);
        go = wait == Wait::go;
      }
      if (!team.sync_or(go)) return;
      const std::uint64_t lo = c * chunk_quads;
      move_strided<quads_in_flight>(input, output, lo + (lane + lanes - lo % lanes) % lanes, chunk_end(c), lanes, all);
      const std::uint64_t next = next_with_quads(c + 1, team.index(), team.size());
      team.sync();  // every thread's writes of the chunk before the count
      if (team.rank() == 0) store_release_device(own_past, next);
      c = next;
    }
  }
};

// The graph design's last node: after the chunk's copy back, the slot's count
// of chunks raised in host memory.
using RaiseSlotFlag = CountToHost;

// Enqueue the kernels above (stream_launch.cpp).
void launch_fused(Stream& stream, const FusedStream& kernel);
int fused_resident_teams(Stream& stream);
void launch_pool(Stream& stream, const PoolStream& kernel);
int pool_resident_teams(Stream& stream);
void launch_raise_slot_flag(Stream& stream, const RaiseSlotFlag& kernel);

}  // namespace ferry::stream
