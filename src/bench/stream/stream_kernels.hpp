#pragma once
// What every `stream` design computes, and the kernels that compute it. Each
// is one FERRY_HD body for the GPU and the emulator.
#include <cstdint>

#include "backend/hd.hpp"
#include "bench/common/pattern.hpp"
#include "bench/stream/stream_flags.hpp"

namespace ferry {
class Stream;
}

namespace ferry::stream {

// The stream's elements are 32-bit words, moved 16 bytes at a time so that a
// GPU thread issues one vector load or store per access.
struct alignas(16) Quad {
  std::uint32_t word[4];
};
constexpr std::uint64_t quad_bytes = sizeof(Quad);

// Word i of the stream's input for one iteration's seed: never the same stream twice.
FERRY_HD inline std::uint32_t input_word(std::uint64_t i, std::uint64_t seed) {
  return static_cast<std::uint32_t>(pattern_word(i, seed));
}

// One stage of the per-element function: `rounds` 32-bit multiply-adds (two
// operations each). Integer arithmetic, so the GPU and the host agree bit for bit,
// and each stage adds a different constant, so a skipped stage cannot pass.
FERRY_HD inline std::uint32_t stage_constant(int stage) {
  return 0x7F4A7C15u * static_cast<std::uint32_t>(stage + 1) | 1u;
}

FERRY_HD inline std::uint32_t stage_round(std::uint32_t x, std::uint32_t add) { return x * 0x9E3779B1u + add; }

FERRY_HD inline std::uint32_t stage_function(std::uint32_t x, int stage, int rounds) {
  const std::uint32_t add = stage_constant(stage);
  for (int r = 0; r < rounds; ++r) x = stage_round(x, add);
  return x;
}

FERRY_HD inline std::uint32_t all_stages(std::uint32_t x, int stages, int rounds) {
  for (int s = 0; s < stages; ++s) x = stage_function(x, s, rounds);
  return x;
}

// Each word's multiply-adds are stage_function's, in its order; the four words
// take each step together, so their four chains overlap. A word at a time left
// every multiply-add waiting on the one before: 1580 cycles for 4 KiB through
// 3 stages on an H100, a tenth of a 4 KiB chunk's latency in fused
// (docs/stream.md, "What was tried"; the stamps: `git show
// b9d1c92:docs/results/stream-experiments/fused-stamps/stamps-inner-h100.txt`).
FERRY_HD inline Quad stage_quad(Quad q, int first_stage, int stage_count, int rounds) {
  for (int s = first_stage; s < first_stage + stage_count; ++s) {
    const std::uint32_t add = stage_constant(s);
    for (int r = 0; r < rounds; ++r) {
      FERRY_UNROLL
      for (auto& w : q.word) w = stage_round(w, add);
    }
  }
  return q;
}

// Stages [first_stage, first_stage + stage_count) over `quads` quads, from `in`
// to `out` (the same buffer for in place). One kernel per chunk: every design
// but the persistent one.
struct StageKernel {
  const Quad* in;
  Quad* out;
  int first_stage;
  int stage_count;
  int rounds;
  FERRY_HD void operator()(std::int64_t i) const { out[i] = stage_quad(in[i], first_stage, stage_count, rounds); }
};

// Which stages a move applies: none (a plain copy) or a range of them.
struct StageRange {
  int first = 0;
  int count = 0;
  int rounds = 1;
};

// Reads each thread keeps in flight while moving a slice.
constexpr int loads_in_flight = 8;

// One thread moves quads first, first + step, ... below hi from `from` to
// `to` through `stages`, `Wave` quads at a time. Loads first, then stores:
// each thread keeps up to `Wave` reads in flight, which is what hides the
// microsecond a read of host memory takes.
template <int Wave = loads_in_flight>
FERRY_HD void move_strided(const Quad* from, Quad* to, std::uint64_t first, std::uint64_t hi, std::uint64_t step,
                           StageRange stages) {
  for (std::uint64_t base = first; base < hi; base += Wave * step) {
    Quad held[Wave];
    FERRY_UNROLL
    for (int k = 0; k < Wave; ++k)
      if (base + k * step < hi) held[k] = from[base + k * step];
    FERRY_UNROLL
    for (int k = 0; k < Wave; ++k)
      if (base + k * step < hi) to[base + k * step] = stage_quad(held[k], stages.first, stages.count, stages.rounds);
  }
}

// The team moves [slice.lo, slice.hi), its threads taking every team.size()-th quad.
template <int Wave = loads_in_flight, class Team>
FERRY_HD void move_slice(const Team& team, const Quad* from, Quad* to, Slice slice, StageRange stages) {
  move_strided<Wave>(from, to, slice.lo + team.rank(), slice.hi, static_cast<std::uint64_t>(team.size()), stages);
}

// The zero-copy design's kernel for one chunk: teams read mapped input and
// write mapped output; the last team to finish raises the chunk's number in
// host memory, so the host learns of it without an event or a stream sync.
struct ZeroCopyChunk {
  const Quad* in;
  Quad* out;
  std::uint64_t quads;
  StageRange stages;
  std::uint64_t* finished_teams;  // device memory: teams finished over every chunk this slot ran
  std::uint64_t* done;            // mapped: the number of the slot's last finished chunk
  std::uint64_t chunk_number;     // chunk index + 1
  std::uint64_t teams_before;     // teams of the chunks this slot ran before this one

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    move_slice(team, in, out, team_slice(quads, team.index(), team.count()), stages);
    team.sync();
    if (team.rank() == 0) {
      // acq_rel at system scope: every team's writes to the host come before the last team's flag.
      // The last team is the one that brings the slot's count to its total, not a multiple of this
      // chunk's teams: a short last chunk has fewer teams than the chunks before it.
      const std::uint64_t before = increment_acq_rel_system(finished_teams);
      if (before + 1 == teams_before + static_cast<std::uint64_t>(team.count()))
        store_release_system(done, chunk_number);
    }
  }
};

enum class Wait { go, shut_down, timed_out };

// Polls between reads of the timeout clock: the clock costs more than a poll,
// so a wait that ends within the first polls never reads it.
constexpr int polls_per_clock_read = 64;

// True once `timeout_ns` passed since the first call of this wait; `since` starts at 0.
FERRY_HD inline bool out_of_time(std::uint64_t& since, std::uint64_t timeout_ns) {
  const std::uint64_t now = timeout_clock_ns();
  if (since == 0) since = now;
  return now - since > timeout_ns;
}

// Waits for `counter` (a doorbell, or a count passed on) to pass chunk c
// (go), or to carry the shutdown message with no more chunks (shut_down), for
// at most timeout_ns.
// - A doorbell in host memory: every poll an acquire load, which orders the
//   chunk's reads after it and costs a poll nothing (a PCIe round trip
//   either way). Relaxed polls and one acquire fence once the value had come
//   cost 0.5-0.9 us more a chunk on an H100 (fused at 4 KiB, depth 1:
//   6.04-6.27 us against 5.39-5.64; docs/stream.md, "What was tried"): the
//   GPU has no acquire-only fence, and a full one at system scope waits for
//   the thread's writes to the host.
// - A counter in device memory: relaxed polls, then a device-scope fence,
//   which never waits for writes to the host.
template <bool from_host>
FERRY_HD Wait wait_past(const std::uint64_t* counter, std::uint64_t c, std::uint64_t timeout_ns) {
  std::uint64_t since = 0;
  for (int polls = 1;; ++polls) {
    const std::uint64_t value = from_host ? load_acquire_system(counter) : load_relaxed_device(counter);
    if constexpr (!from_host) {
      if ((value & ~shutdown_bit) > c || (value & shutdown_bit)) fence_acquire_device();
    }
    if ((value & ~shutdown_bit) > c) return Wait::go;
    if (value & shutdown_bit) return Wait::shut_down;
    if (polls % polls_per_clock_read == 0 && out_of_time(since, timeout_ns)) return Wait::timed_out;
    spin_pause();
  }
}

// Enqueue the kernels above (stream_launch.cpp, compiled as CUDA when the CUDA backend is built).
void launch_stages(Stream& stream, const StageKernel& kernel, std::uint64_t quads);
void launch_zero_copy_chunk(Stream& stream, const ZeroCopyChunk& kernel, int teams);

}  // namespace ferry::stream
