#pragma once
// Bitonic sort of a power-of-two number of 32-bit keys: log2(n) stages, stage
// s of s passes, n/2 compare-exchanges per pass, each pass depending on the
// one before. 32768 keys take 15 * 16 / 2 = 120 passes. One FERRY_HD body
// serves every shape the ladder dispatches it in: a kernel per pass and one
// team sorting in its on-chip memory here, the fused shapes in fused_sort.hpp.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend/hd.hpp"

namespace ferry {
class Stream;
}

namespace ferry::dispatch {

// One pass: compare-exchange keys `distance` apart, ascending within blocks of
// `block` keys whose index has the `block` bit clear, descending elsewhere.
// 32 bits hold every index: ferry sorts at most 2^31 keys.
struct Pass {
  std::uint32_t block = 2;
  std::uint32_t distance = 1;
};

// each(pass) for every pass of a sort of `count` keys (a power of two >= 2), in order.
template <class Each>
FERRY_HD void for_each_pass(std::uint64_t count, Each each) {
  for (std::uint64_t block = 2; block <= count; block <<= 1)
    for (std::uint64_t distance = block >> 1; distance > 0; distance >>= 1)
      each(Pass{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(distance)});
}

inline std::vector<Pass> bitonic_passes(std::uint64_t count) {
  std::vector<Pass> passes;
  for_each_pass(count, [&](Pass pass) { passes.push_back(pass); });
  return passes;
}

// Where key i is kept: at i in device memory. On chip, one spare word after
// every 32 keys, so that threads that each walk their own run of keys (or
// load their own group of 8) meet different banks.
struct Dense {
  FERRY_HD std::uint32_t operator()(std::uint32_t i) const { return i; }
};
struct Padded {
  FERRY_HD std::uint32_t operator()(std::uint32_t i) const { return i + i / 32; }
};
FERRY_HD inline std::size_t on_chip_bytes(std::uint64_t count) { return 4 * (count + count / 32); }

// Pair `pair` of the pass: keys lo and lo + distance, lo with the distance bit clear.
template <class Slot = Dense>
FERRY_HD void compare_exchange(std::uint32_t* keys, Pass pass, std::uint32_t pair, Slot slot = {}) {
  const std::uint32_t low_bits = pair & (pass.distance - 1);
  const std::uint32_t lo = ((pair - low_bits) << 1) | low_bits;
  const std::uint32_t at_lo = slot(lo), at_hi = slot(lo + pass.distance);
  const std::uint32_t a = keys[at_lo], b = keys[at_hi];
  const bool ascending = (lo & pass.block) == 0;
  if ((a > b) == ascending) {
    keys[at_lo] = b;
    keys[at_hi] = a;
  }
}

// A kernel per pass: one index per pair.
struct PassKernel {
  std::uint32_t* keys;
  Pass pass;
  FERRY_HD void operator()(std::int64_t pair) const { compare_exchange(keys, pass, static_cast<std::uint32_t>(pair)); }
};

// One team sorts every key in its on-chip memory. Each thread owns a run of
// `run` keys, and a pass whose distance is shorter than the run stays inside
// every run: a thread does those passes alone, one after another, and the
// team waits for itself only between the longer passes.
struct OnChipSort {
  static constexpr int threads_per_team = 1024;  // the most a GPU team holds: each thread has fewer pairs
  std::uint32_t* keys;
  std::uint32_t count;  // at most what fits on chip
  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    auto* on_chip = reinterpret_cast<std::uint32_t*>(team.shared());
    const Padded slot;
    const auto rank = static_cast<std::uint32_t>(team.rank()), size = static_cast<std::uint32_t>(team.size());
    const std::uint32_t run = count / size > 2 ? count / size : 2;
    const std::uint32_t pairs_per_run = run / 2;
    const bool owns_a_run = rank < count / run;
    for (std::uint32_t i = rank; i < count; i += size) on_chip[slot(i)] = keys[i];
    team.sync();
    for (std::uint32_t block = 2; block <= count; block <<= 1) {
      std::uint32_t distance = block / 2;
      for (; distance >= run; distance /= 2) {
        for (std::uint32_t pair = rank; pair < count / 2; pair += size)
          compare_exchange(on_chip, {block, distance}, pair, slot);
        team.sync();
      }
      if (owns_a_run)
        for (; distance > 0; distance /= 2)
          for (std::uint32_t pair = rank * pairs_per_run; pair < (rank + 1) * pairs_per_run; ++pair)
            compare_exchange(on_chip, {block, distance}, pair, slot);
      team.sync();
    }
    for (std::uint32_t i = rank; i < count; i += size) keys[i] = on_chip[slot(i)];
  }
};

struct FusedStep;

// Enqueueing each shape (bitonic_launch.cpp, compiled as CUDA with the CUDA
// backend). The fused shapes are in fused_sort.hpp; `tile` is at most `count`.
void enqueue_pass(Stream& stream, std::uint32_t* keys, std::uint64_t count, Pass pass, bool programmatic);
void enqueue_fused_step(Stream& stream, std::uint32_t* keys, std::uint64_t count, std::uint64_t tile,
                        const FusedStep& step, bool programmatic);
// Every fused step in order, the first reading the keys from `in` and the last
// writing them to `out` (mapped host memory for +zerocopy); `keys` between.
void enqueue_fused_sort(Stream& stream, std::uint32_t* in, std::uint32_t* keys, std::uint32_t* out, std::uint64_t count,
                        std::uint64_t tile, bool programmatic);
// Every fused step in one cooperative kernel of `teams` teams.
void enqueue_persistent(Stream& stream, std::uint32_t* keys, std::uint64_t count, std::uint64_t tile, int teams);
int persistent_capacity(Stream& stream, std::uint64_t tile);  // the most of those teams the device holds at once
// The whole sort as one cluster of count / tile teams, reading the keys from
// `in` once and writing them to `out` once (ClusterFusedSort).
void enqueue_cluster_sort(Stream& stream, const std::uint32_t* in, std::uint32_t* out, std::uint64_t count,
                          std::uint64_t tile);
// The same cluster left running for sort after sort (ResidentClusterSort):
// `doorbell` and `done` (a flag per team) in mapped host memory.
void launch_resident_sort(Stream& stream, const std::uint32_t* in, std::uint32_t* out, std::uint64_t count,
                          std::uint64_t tile, const std::uint64_t* doorbell, std::uint64_t* done,
                          std::uint64_t idle_timeout_ns);
// One team sorts every key in its on-chip memory (OnChipSort).
void enqueue_on_chip(Stream& stream, std::uint32_t* keys, std::uint64_t count);

}  // namespace ferry::dispatch
