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
// step for the rest of it. 32768 keys in tiles of 1024: 1 + (1+1) x 3 +
// (2+1) x 2 = 13 steps instead of 120 passes.
#include <cstdint>
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
// team's threads side by side: whole lines. Across PCIe, a group's scattered
// 4-byte accesses made +zerocopy slower than +fused's copies (docs/dispatch.md).
template <class Team>
FERRY_HD void tile_in(const Team& team, const std::uint32_t* from, const Place<Padded>& on_chip, std::uint32_t first,
                      std::uint32_t tile) {
  const auto rank = static_cast<std::uint32_t>(team.rank()), size = static_cast<std::uint32_t>(team.size());
  if (tile % 4 != 0) {
    for (std::uint32_t i = rank; i < tile; i += size) on_chip[first + i] = from[first + i];
    return;
  }
  const auto* four = reinterpret_cast<const FourKeys*>(from + first);
  for (std::uint32_t q = rank; q < tile / 4; q += size) {
    const FourKeys keys = four[q];
    FERRY_UNROLL
    for (std::uint32_t k = 0; k < 4; ++k) on_chip[first + 4 * q + k] = keys.key[k];
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

// An on-chip step for each tile the team takes: its passes a window at a
// time (a window: every group of the same bits, up to three passes), the team
// waiting for itself between windows. The first window's keys come straight
// from `from` and the last's go straight to `to`, so a step of one window
// never touches on-chip memory; with `stage_in` (`stage_out`) the tile is
// moved between `from` (`to`) and on-chip memory whole instead: a sort's
// first and last step when its keys are in mapped host memory.
template <class Team>
FERRY_HD void run_on_chip_step(const Team& team, std::uint32_t* from, std::uint32_t* to, bool stage_in, bool stage_out,
                               std::uint64_t count, std::uint64_t tile, const FusedStep& step) {
  const int tile_bits = log2_of(tile);
  const int width = tile_bits < group_bits ? tile_bits : group_bits;
  const auto rank = static_cast<std::uint32_t>(team.rank()), size = static_cast<std::uint32_t>(team.size());
  const std::uint32_t groups = static_cast<std::uint32_t>(tile) >> width;
  const std::uint64_t last_block = step.block_last;
  for (std::uint64_t t = static_cast<std::uint64_t>(team.index()); t < count / tile; t += static_cast<std::uint64_t>(team.count())) {
    const auto first = static_cast<std::uint32_t>(t * tile);
    const Place<Dense> in{from, 0, {}}, out{to, 0, {}};
    const Place<Padded> on_chip{reinterpret_cast<std::uint32_t*>(team.shared()), first, {}};
    if (stage_in) {
      tile_in(team, from, on_chip, first, static_cast<std::uint32_t>(tile));
      team.sync();
    }
    bool first_group = true;
    for (std::uint64_t block = step.block_first; block <= last_block; block <<= 1) {
      const int longest = (block < tile ? log2_of(block) : tile_bits) - 1;
      for (int hi = longest; hi >= 0; hi -= width) {
        const Group group = group_for(hi, hi - width + 1 > 0 ? hi - width + 1 : 0, tile_bits);
        const bool last_group = block == last_block && hi - width < 0;
        if (!first_group) team.sync();  // the window before stored what this one loads
        const bool load = first_group && !stage_in, store = last_group && !stage_out;  // straight from / to memory
        for (std::uint32_t g = rank; g < groups; g += size) {
          const auto b = static_cast<std::uint32_t>(block);
          if (load && store) sort_group(in, out, g, group, b, first);
          else if (load) sort_group(in, on_chip, g, group, b, first);
          else if (store) sort_group(on_chip, out, g, group, b, first);
          else sort_group(on_chip, on_chip, g, group, b, first);
        }
        first_group = false;
      }
    }
    if (stage_out) {
      team.sync();
      tile_out(team, on_chip, to, first, static_cast<std::uint32_t>(tile));
    }
    team.sync();  // before the next tile's first group overwrites on-chip memory
  }
}

// A long step's group number g, straight in device memory.
FERRY_HD inline void run_long_group(std::uint32_t* keys, std::uint32_t g, const FusedStep& step) {
  const Place<Dense> device{keys, 0, {}};
  sort_group(device, device, g, step.group, static_cast<std::uint32_t>(step.block_first), 0);
}

// The kernels: one on-chip step per launch (from `from` to `to`), one long
// step per launch (a thread per group), or every step in one cooperative
// launch with a grid barrier where a kernel would have ended.
template <int Threads>
struct OnChipStep {
  static constexpr int threads_per_team = Threads;
  std::uint32_t* from;
  std::uint32_t* to;
  bool stage_in, stage_out;
  std::uint64_t count, tile;
  FusedStep step;
  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    run_on_chip_step(team, from, to, stage_in, stage_out, count, tile, step);
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
        run_on_chip_step(team, keys, keys, false, false, count, tile, step);
        return;
      }
      const std::uint64_t groups = count >> step.group.width;
      for (std::uint64_t g = me; g < groups; g += stride) run_long_group(keys, static_cast<std::uint32_t>(g), step);
    });
  }
};

}  // namespace ferry::dispatch
