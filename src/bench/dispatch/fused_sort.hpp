#pragma once
// Bitonic sort in few steps. Most of a sort's passes are short: their
// distance fits in a tile of keys one team holds in on-chip memory, so one
// kernel (or, persistent, one stretch between grid barriers) can run many of
// them. Only the passes longer than a tile go through device memory. Inside
// either, a thread keeps a group of up to 8 keys in registers, so that up to
// three passes cost one load and one store of each key.
//
// The plan for n keys in tiles of t: one step sorts every tile (stages 2..t),
// then each longer stage is its long passes, three to a step, and one on-chip
// step for the rest of it. 32768 keys in tiles of 2048: 1 + (1+1) x 3 +
// (2+1) = 10 steps instead of 120 passes.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/hd.hpp"
#include "bench/dispatch/bitonic.hpp"

namespace ferry::dispatch {

inline constexpr int group_bits = 3;

FERRY_HD inline int log2_of(std::uint64_t power_of_two) {
  int bits = 0;
  while ((std::uint64_t{1} << bits) < power_of_two) ++bits;
  return bits;
}

// The keys whose indices differ only in `width` adjacent bits from `low`, and
// the passes done on them: distance bits hi down to lo, all within those bits.
struct Group {
  int low = 0;
  int width = group_bits;
  int hi = 0;
  int lo = 0;
};

// The group holding the passes hi..lo (hi - lo < group_bits) among indices of `index_bits` bits.
FERRY_HD inline Group group_for(int hi, int lo, int index_bits) {
  const int width = index_bits < group_bits ? index_bits : group_bits;
  int low = hi - width + 1;
  if (low < 0) low = 0;
  if (low > index_bits - width) low = index_bits - width;
  return {low, width, hi, lo};
}

// Key k of group number g: g's bits below `low` stay, k fills the group's bits, g's other bits move above them.
FERRY_HD inline std::uint32_t group_key(std::uint32_t g, std::uint32_t k, const Group& group) {
  const std::uint32_t below = g & ((1u << group.low) - 1);
  return ((g >> group.low) << (group.low + group.width)) | (k << group.low) | below;
}

// Where a group's keys come from or go to: `keys` at slot(index - first)
// for the indices of the whole sort.
template <class Slot>
struct Place {
  std::uint32_t* keys;
  std::uint32_t first;  // the index of keys[slot(0)]: 0 in device memory, the tile's first key on chip
  Slot slot;
  FERRY_HD std::uint32_t& operator[](std::uint32_t index) const { return keys[slot(index - first)]; }
};

// GCC warns that v[k] may be used unset where it inlines this for tiles of 2
// or 4 keys; only the `held` keys that were loaded are ever read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// The group's passes of stage `block` on group number g, in registers: loaded
// from `from`, stored to `to`. Indices within a tile are offset by `first`, the
// tile's first key, which with `block` sets each pair's direction.
template <class From, class To>
FERRY_HD void sort_group(const From& from, const To& to, std::uint32_t g, const Group& group, std::uint32_t block,
                         std::uint32_t first) {
  constexpr std::uint32_t most = 1u << group_bits;
  const std::uint32_t held = 1u << group.width;
  const std::uint32_t base = first | group_key(g, 0, group);
  std::uint32_t v[most];
  FERRY_UNROLL
  for (std::uint32_t k = 0; k < most; ++k)
    if (k < held) v[k] = from[base | (k << group.low)];
  FERRY_UNROLL
  for (int j = group_bits - 1; j >= 0; --j) {
    const int bit = group.low + j;
    if (j >= group.width || bit > group.hi || bit < group.lo) continue;
    FERRY_UNROLL
    for (std::uint32_t k = 0; k < most; ++k) {
      if (k >= held || ((k >> j) & 1u)) continue;
      const std::uint32_t partner = k | (1u << j);
      const bool ascending = ((base | (k << group.low)) & block) == 0;
      const std::uint32_t a = v[k], b = v[partner];
      if ((a > b) == ascending) {
        v[k] = b;
        v[partner] = a;
      }
    }
  }
  FERRY_UNROLL
  for (std::uint32_t k = 0; k < most; ++k)
    if (k < held) to[base | (k << group.low)] = v[k];
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// One step: on chip, the passes shorter than a tile of stages block_first..block_last;
// else one group of stage block_first's long passes, through device memory.
struct FusedStep {
  bool on_chip = true;
  std::uint64_t block_first = 2;
  std::uint64_t block_last = 2;
  Group group{};
};

template <class Each>
FERRY_HD void for_each_fused_step(std::uint64_t count, std::uint64_t tile, Each each) {
  const int tile_bits = log2_of(tile), count_bits = log2_of(count);
  each(FusedStep{true, 2, tile, {}});
  for (std::uint64_t block = 2 * tile; block <= count; block <<= 1) {
    for (int hi = log2_of(block) - 1; hi >= tile_bits; hi -= group_bits) {
      const int lo = hi - group_bits + 1 > tile_bits ? hi - group_bits + 1 : tile_bits;
      each(FusedStep{false, block, block, group_for(hi, lo, count_bits)});
    }
    each(FusedStep{true, block, block, {}});
  }
}

inline std::vector<FusedStep> fused_steps(std::uint64_t count, std::uint64_t tile) {
  std::vector<FusedStep> steps;
  for_each_fused_step(count, tile, [&](const FusedStep& step) { steps.push_back(step); });
  return steps;
}

// Four keys, so that a thread moves 16 bytes at a time.
struct alignas(16) FourKeys {
  std::uint32_t key[4];
};

// A tile of keys between memory and on-chip memory, 16 bytes a thread and the
// team's threads side by side: whole lines, for every on-chip step. Across
// PCIe, a group's scattered 4-byte accesses had made +zerocopy slower than
// +fused's copies (docs/dispatch.md).
template <class Team>
FERRY_HD void tile_in(const Team& team, const std::uint32_t* from, const Place<Padded>& on_chip, std::uint32_t first,
                      std::uint32_t tile) {
  const auto rank = static_cast<std::uint32_t>(team.rank()), size = static_cast<std::uint32_t>(team.size());
  if (tile % 4 != 0) {
    for (std::uint32_t i = rank; i < tile; i += size) on_chip[first + i] = from[first + i];
    return;
  }
  // Every load of a batch is issued before its stores: a store to on-chip
  // memory through a plain pointer could alias the next load, so otherwise
  // each 16 bytes waits a full trip to memory (across PCIe for +zerocopy).
  constexpr std::uint32_t batch = 4;
  const auto* four = reinterpret_cast<const FourKeys*>(from + first);
  for (std::uint32_t q = rank; q < tile / 4; q += batch * size) {
    FourKeys keys[batch];
    FERRY_UNROLL
    for (std::uint32_t b = 0; b < batch; ++b)
      if (q + b * size < tile / 4) keys[b] = four[q + b * size];
    FERRY_UNROLL
    for (std::uint32_t b = 0; b < batch; ++b) {
      if (q + b * size >= tile / 4) break;
      FERRY_UNROLL
      for (std::uint32_t k = 0; k < 4; ++k) on_chip[first + 4 * (q + b * size) + k] = keys[b].key[k];
    }
  }
}

template <class Team>
FERRY_HD void tile_out(const Team& team, const Place<Padded>& on_chip, std::uint32_t* to, std::uint32_t first,
                       std::uint32_t tile) {
  const auto rank = static_cast<std::uint32_t>(team.rank()), size = static_cast<std::uint32_t>(team.size());
  if (tile % 4 != 0) {
    for (std::uint32_t i = rank; i < tile; i += size) to[first + i] = on_chip[first + i];
    return;
  }
  auto* four = reinterpret_cast<FourKeys*>(to + first);
  for (std::uint32_t q = rank; q < tile / 4; q += size) {
    FourKeys keys;
    FERRY_UNROLL
    for (std::uint32_t k = 0; k < 4; ++k) keys.key[k] = on_chip[first + 4 * q + k];
    four[q] = keys;
  }
}

// The deepest stage stage_windows is compiled for, and so the largest tile:
// more keys than any device's on-chip memory holds today.
inline constexpr int deepest_stage = 16;
inline constexpr std::uint64_t largest_tile = std::uint64_t{1} << deepest_stage;

// Empty when the stages are compiled for tiles of `tile` keys, else why not.
inline std::string uncompiled_tile_reason(std::uint64_t tile) {
  if (tile <= largest_tile) return "";
  return "tiles of " + std::to_string(tile) + " keys: the on-chip stages are compiled for at most " +
         std::to_string(largest_tile);
}

// One window of a tile in on-chip memory: sort_group with the group's bits
// known when compiled. The group is bits Hi-2..Hi (0..2 for Hi < 2), its
// passes every bit of those down from Hi. A slot is linear over disjoint
// bits, so each key's place is the group's first place plus a constant, and
// the pairs' directions are one test a group (the block's bit is one of the
// group's own only in stages 2 and 4).
// The passes of one stage on a group of 8 keys in registers, from bit Hi down
// to the group's low bit: `flip` when the group's first key sorts descending,
// `block_in_group` the stage's block bit among the group's own bits (0: none).
template <int Low, int Hi>
FERRY_HD void exchange_group(std::uint32_t (&v)[1u << group_bits], bool flip, std::uint32_t block_in_group) {
  FERRY_UNROLL
  for (int j = group_bits - 1; j >= 0; --j) {
    if (Low + j > Hi) continue;
    FERRY_UNROLL
    for (std::uint32_t k = 0; k < (1u << group_bits); ++k) {
      if ((k >> j) & 1u) continue;
      const std::uint32_t partner = k | (1u << j);
      const bool descending = flip != ((k & block_in_group) != 0);
      const std::uint32_t a = v[k], b = v[partner];
      const std::uint32_t smaller = a < b ? a : b, larger = a < b ? b : a;
      v[k] = descending ? larger : smaller;
      v[partner] = descending ? smaller : larger;
    }
  }
}

// The group of 8 keys 2^Low apart from `base`, from on-chip memory into
// registers, `exchange` on them there, and back.
template <int Low, class Exchange>
FERRY_HD void in_registers(const Place<Padded>& on_chip, std::uint32_t base, Exchange exchange) {
  std::uint32_t* keys = &on_chip[base];
  std::uint32_t v[1u << group_bits];
  FERRY_UNROLL
  for (std::uint32_t k = 0; k < (1u << group_bits); ++k) v[k] = keys[on_chip.slot(k << Low)];
  exchange(v);
  FERRY_UNROLL
  for (std::uint32_t k = 0; k < (1u << group_bits); ++k) keys[on_chip.slot(k << Low)] = v[k];
}

template <int Hi>
FERRY_HD void sort_window(const Place<Padded>& on_chip, std::uint32_t g, std::uint32_t block, std::uint32_t first) {
  constexpr int low = Hi < group_bits - 1 ? 0 : Hi - (group_bits - 1);
  constexpr std::uint32_t most = 1u << group_bits;
  const std::uint32_t base = first | ((g >> low) << (low + group_bits)) | (g & ((1u << low) - 1));
  in_registers<low>(on_chip, base, [&](std::uint32_t(&v)[most]) {
    exchange_group<low, Hi>(v, (base & block) != 0, (block >> low) & (most - 1));
  });
}

// Stages 2, 4 and 8 of a tile in on-chip memory as one window: each group of
// 8 consecutive keys sorted in registers, where each stage had a window and
// the team waited between them.
template <class Team>
FERRY_HD void first_three_stages(const Team& team, const Place<Padded>& on_chip, std::uint32_t groups) {
  for (auto g = static_cast<std::uint32_t>(team.rank()); g < groups; g += static_cast<std::uint32_t>(team.size())) {
    const std::uint32_t base = on_chip.first | (g << group_bits);
    in_registers<0>(on_chip, base, [&](std::uint32_t(&v)[1u << group_bits]) {
      exchange_group<0, 0>(v, false, 2);  // base's bits 0..2 are clear: the block bit among them decides
      exchange_group<0, 1>(v, false, 4);
      exchange_group<0, 2>(v, (base & 8) != 0, 0);
    });
  }
}

// A stage's windows on a tile in on-chip memory, from bit Hi down to bit 0,
// the team waiting for itself between them: unrolled when compiled, so that a
// window is its loads, compare-exchanges and stores. With the bits known only
// at run time, a window was twice the instructions, and one warp a scheduler
// cannot hide them (an H100 issued one every 5.4 cycles: docs/dispatch.md).
template <int Hi, class Team>
FERRY_HD void stage_windows(const Team& team, const Place<Padded>& on_chip, std::uint32_t groups, std::uint32_t block,
                            std::uint32_t first) {
  for (auto g = static_cast<std::uint32_t>(team.rank()); g < groups; g += static_cast<std::uint32_t>(team.size()))
    sort_window<Hi>(on_chip, g, block, first);
  if constexpr (Hi >= group_bits) {
    team.sync();  // this window stored what the next one loads
    stage_windows<Hi - group_bits>(team, on_chip, groups, block, first);
  }
}

// stage(std::integral_constant<int, hi>{}) for a hi known only at run time, below deepest_stage.
template <int Hi = 0, class Stage>
FERRY_HD void with_top_bit(int hi, const Stage& stage) {
  if constexpr (Hi < deepest_stage) {
    if (hi == Hi) stage(std::integral_constant<int, Hi>{});
    else with_top_bit<Hi + 1>(hi, stage);
  }
}

// The passes of stage 2^block_bits shorter than a tile, on a tile in on-chip
// memory. Tiles of 2 or 4 keys, smaller than a group, take one window of sort_group.
template <class Team>
FERRY_HD void run_on_chip_stage(const Team& team, const Place<Padded>& on_chip, int tile_bits, int block_bits) {
  const int top = (block_bits < tile_bits ? block_bits : tile_bits) - 1;
  const std::uint32_t block = 1u << block_bits;
  if (tile_bits < group_bits) {
    if (team.rank() == 0) sort_group(on_chip, on_chip, 0, group_for(top, 0, tile_bits), block, on_chip.first);
    return;
  }
  const std::uint32_t groups = 1u << (tile_bits - group_bits);
  with_top_bit(top, [&](auto top_bit) { stage_windows<top_bit()>(team, on_chip, groups, block, on_chip.first); });
}

// Stage 2^block_bits on a tile in on-chip memory, or, from stage 2 on a tile
// of 8 keys or more, stages 2 to 8 in one window; returns the last stage's bits.
template <class Team>
FERRY_HD int run_on_chip_stages(const Team& team, const Place<Padded>& on_chip, int tile_bits, int block_bits) {
  if (block_bits != 1 || tile_bits < group_bits) {
    run_on_chip_stage(team, on_chip, tile_bits, block_bits);
    return block_bits;
  }
  first_three_stages(team, on_chip, 1u << (tile_bits - group_bits));
  return group_bits;
}

// An on-chip step for each tile the team takes: the tile moves into on-chip
// memory whole (16 bytes a thread), its stages run there, and it moves back to `to`.
template <class Team>
FERRY_HD void run_on_chip_step(const Team& team, std::uint32_t* from, std::uint32_t* to, std::uint64_t count,
                               std::uint64_t tile, const FusedStep& step) {
  const int tile_bits = log2_of(tile);
  const int first_bits = log2_of(step.block_first), last_bits = log2_of(step.block_last);
  for (std::uint64_t t = static_cast<std::uint64_t>(team.index()); t < count / tile;
       t += static_cast<std::uint64_t>(team.count())) {
    const auto first = static_cast<std::uint32_t>(t * tile);
    const Place<Padded> on_chip{reinterpret_cast<std::uint32_t*>(team.shared()), first, {}};
    tile_in(team, from, on_chip, first, static_cast<std::uint32_t>(tile));
    for (int block_bits = first_bits; block_bits <= last_bits; ++block_bits) {
      team.sync();  // the tile, or the stage before, is on chip
      block_bits = run_on_chip_stages(team, on_chip, tile_bits, block_bits);
    }
    team.sync();
    tile_out(team, on_chip, to, first, static_cast<std::uint32_t>(tile));
    team.sync();  // before the next tile overwrites on-chip memory
  }
}

// A long step's group number g, straight in device memory.
FERRY_HD inline void run_long_group(std::uint32_t* keys, std::uint32_t g, const FusedStep& step) {
  const Place<Dense> device{keys, 0, {}};
  sort_group(device, device, g, step.group, static_cast<std::uint32_t>(step.block_first), 0);
}

// Index i of the whole sort in a cluster's on-chip memory: team i / tile's, at
// the slot i % tile takes in its own tile.
template <class Team>
struct ClusterPlace {
  const Team* team;
  int tile_bits;
  FERRY_HD std::uint32_t& operator[](std::uint32_t index) const {
    auto* keys = reinterpret_cast<std::uint32_t*>(team->peer_shared(static_cast<int>(index >> tile_bits)));
    return keys[Padded{}(index & ((1u << tile_bits) - 1))];
  }
};

// The whole sort in one cluster's on-chip memory, a tile a team: from `from`
// to `to`, which are read and written once each. Every stage's passes shorter
// than a tile run as in an on-chip step; the longer ones, in groups of up to
// three passes, read and write the other teams' on-chip memory between
// cluster barriers, where +fused has a kernel sweep device memory. After the
// last barrier no team touches another's memory, so each may leave when done.
template <class Team>
FERRY_HD void run_cluster_sort(const Team& team, const std::uint32_t* from, std::uint32_t* to, std::uint64_t count,
                               std::uint64_t tile) {
  const int tile_bits = log2_of(tile), count_bits = log2_of(count);
  const auto first = static_cast<std::uint32_t>(team.index()) << tile_bits;
  const Place<Padded> on_chip{reinterpret_cast<std::uint32_t*>(team.shared()), first, {}};
  const ClusterPlace<Team> cluster{&team, tile_bits};
  const auto size = static_cast<std::uint32_t>(team.size());
  const std::uint32_t me = static_cast<std::uint32_t>(team.index()) * size + static_cast<std::uint32_t>(team.rank());
  const std::uint32_t threads = static_cast<std::uint32_t>(team.count()) * size;
  tile_in(team, from, on_chip, first, static_cast<std::uint32_t>(tile));
  for (int block_bits = 1; block_bits <= count_bits; ++block_bits) {
    const std::uint32_t block = 1u << block_bits;
    if (block_bits > tile_bits) {
      for (int hi = block_bits - 1; hi >= tile_bits; hi -= group_bits) {
        const int lo = hi - group_bits + 1 > tile_bits ? hi - group_bits + 1 : tile_bits;
        const Group group = group_for(hi, lo, count_bits);
        team.cluster_sync();  // every team's keys from the stage or window before are in place
        for (std::uint32_t g = me; g < static_cast<std::uint32_t>(count >> group.width); g += threads)
          sort_group(cluster, cluster, g, group, block, 0);
      }
      team.cluster_sync();
    } else {
      team.sync();
    }
    block_bits = run_on_chip_stages(team, on_chip, tile_bits, block_bits);
  }
  team.sync();
  tile_out(team, on_chip, to, first, static_cast<std::uint32_t>(tile));
}

// The kernels: one on-chip step per launch (from `from` to `to`), one long
// step per launch (a thread per group), every step in one cooperative
// launch with a grid barrier where a kernel would have ended, or the whole
// sort in one cluster.
template <int Threads>
struct OnChipStep {
  static constexpr int threads_per_team = Threads;
  std::uint32_t* from;
  std::uint32_t* to;
  std::uint64_t count, tile;
  FusedStep step;
  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    run_on_chip_step(team, from, to, count, tile, step);
  }
};

struct LongStep {
  std::uint32_t* keys;
  FusedStep step;
  FERRY_HD void operator()(std::int64_t g) const { run_long_group(keys, static_cast<std::uint32_t>(g), step); }
};

struct PersistentFusedSort {
  std::uint32_t* keys;
  std::uint64_t count, tile;
  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    const auto size = static_cast<std::uint64_t>(team.size());
    const std::uint64_t stride = static_cast<std::uint64_t>(team.count()) * size;
    const std::uint64_t me = static_cast<std::uint64_t>(team.index()) * size + static_cast<std::uint64_t>(team.rank());
    bool first = true;
    for_each_fused_step(count, tile, [&](const FusedStep& step) {
      if (!first) team.grid_sync();
      first = false;
      if (step.on_chip) {
        run_on_chip_step(team, keys, keys, count, tile, step);
        return;
      }
      const std::uint64_t groups = count >> step.group.width;
      for (std::uint64_t g = me; g < groups; g += stride) run_long_group(keys, static_cast<std::uint32_t>(g), step);
    });
  }
};

template <int Threads>
struct ClusterFusedSort {
  static constexpr int threads_per_team = Threads;
  const std::uint32_t* from;
  std::uint32_t* to;
  std::uint64_t count, tile;
  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    run_cluster_sort(team, from, to, count, tile);
  }
};

}  // namespace ferry::dispatch
