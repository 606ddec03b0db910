#include <string>
#include <type_traits>

#include "backend/launch.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"
#include "bench/dispatch/resident_sort.hpp"
#include "core/error.hpp"

namespace ferry::dispatch {
namespace {

StreamOrder order(bool programmatic) { return programmatic ? StreamOrder::programmatic : StreamOrder::complete; }

// launch(std::integral_constant<int, T>{}) with T the threads of a team for
// tiles of `tile` keys: a thread per group of 8 keys, 32 to 256 (a tile of
// 2048 keys in one go).
template <int Threads = 256, class Launch>
void with_team_threads(std::uint64_t tile, const Launch& launch) {
  if constexpr (Threads > 32) {
    if ((tile >> group_bits) < Threads) return with_team_threads<Threads / 2>(tile, launch);
  }
  launch(std::integral_constant<int, Threads>{});
}

// The on-chip stages are compiled for tiles up to largest_tile; a larger one
// would leave its stages undone, so it is refused here as well as by the ladder.
void require_compiled_tile(std::uint64_t tile) {
  if (std::string why = uncompiled_tile_reason(tile); !why.empty()) throw RuntimeFailure(why);
}

// A step that reads the keys from `from` and leaves them in `to`; only the
// on-chip steps, which every sort starts and ends with, take them elsewhere,
// and move whole tiles there.
void launch_fused_step(Stream& stream, std::uint32_t* from, std::uint32_t* keys, std::uint32_t* to, std::uint64_t count,
                       std::uint64_t tile, const FusedStep& step, bool programmatic) {
  require_compiled_tile(tile);
  if (step.on_chip) {
    with_team_threads(tile, [&](auto threads) {
      parallel_teams(stream, static_cast<int>(count / tile), OnChipStep<threads()>{from, to, count, tile, step},
                     Residency::any, on_chip_bytes(tile), order(programmatic));
    });
  } else {
    parallel_for(stream, static_cast<std::int64_t>(count >> step.group.width), LongStep{keys, step},
                 order(programmatic));
  }
}

}  // namespace

void enqueue_pass(Stream& stream, std::uint32_t* keys, std::uint64_t count, Pass pass, bool programmatic) {
  parallel_for(stream, static_cast<std::int64_t>(count / 2), PassKernel{keys, pass}, order(programmatic));
}

void enqueue_fused_step(Stream& stream, std::uint32_t* keys, std::uint64_t count, std::uint64_t tile,
                        const FusedStep& step, bool programmatic) {
  launch_fused_step(stream, keys, keys, keys, count, tile, step, programmatic);
}

void enqueue_fused_sort(Stream& stream, std::uint32_t* in, std::uint32_t* keys, std::uint32_t* out, std::uint64_t count,
                        std::uint64_t tile, bool programmatic) {
  const std::vector<FusedStep> steps = fused_steps(count, tile);
  for (std::size_t i = 0; i < steps.size(); ++i)
    launch_fused_step(stream, i == 0 ? in : keys, keys, i + 1 == steps.size() ? out : keys, count, tile, steps[i],
                      programmatic);
}

void enqueue_persistent(Stream& stream, std::uint32_t* keys, std::uint64_t count, std::uint64_t tile, int teams) {
  require_compiled_tile(tile);
  parallel_teams(stream, teams, PersistentFusedSort{keys, count, tile}, Residency::all_at_once, on_chip_bytes(tile));
}

int persistent_capacity(Stream& stream, std::uint64_t tile) {
  return resident_teams(stream, PersistentFusedSort{nullptr, 0, 0}, on_chip_bytes(tile));
}

void enqueue_cluster_sort(Stream& stream, const std::uint32_t* in, std::uint32_t* out, std::uint64_t count,
                          std::uint64_t tile) {
  require_compiled_tile(tile);
  with_team_threads(tile, [&](auto threads) {
    parallel_teams(stream, static_cast<int>(count / tile), ClusterFusedSort<threads()>{in, out, count, tile},
                   Residency::one_cluster, on_chip_bytes(tile));
  });
}

void launch_resident_sort(Stream& stream, const std::uint32_t* in, std::uint32_t* out, std::uint64_t count,
                          std::uint64_t tile, const std::uint64_t* doorbell, std::uint64_t* done,
                          std::uint64_t idle_timeout_ns) {
  require_compiled_tile(tile);
  with_team_threads(tile, [&](auto threads) {
    parallel_teams(stream, static_cast<int>(count / tile),
                   ResidentClusterSort<threads()>{in, out, count, tile, doorbell, done, idle_timeout_ns},
                   Residency::one_cluster, resident_on_chip_bytes(tile));
  });
}

void enqueue_on_chip(Stream& stream, std::uint32_t* keys, std::uint64_t count) {
  parallel_teams(stream, 1, OnChipSort{keys, static_cast<std::uint32_t>(count)}, Residency::any, on_chip_bytes(count));
}

}  // namespace ferry::dispatch
