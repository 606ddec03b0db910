#include <string>

#include "backend/launch.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"
#include "core/error.hpp"

namespace ferry::dispatch {
namespace {

StreamOrder order(bool programmatic) { return programmatic ? StreamOrder::programmatic : StreamOrder::complete; }

// A thread per group of 8 keys, up to 256 a team (a tile of 2048 keys in one go).
template <int Threads>
void launch_on_chip_step(Stream& stream, const OnChipStep<256>& kernel, bool programmatic) {
  if (Threads > 32 && (kernel.tile >> group_bits) < Threads)
    return launch_on_chip_step<(Threads > 32 ? Threads / 2 : 32)>(stream, kernel, programmatic);
  const OnChipStep<Threads> sized{kernel.from, kernel.to, kernel.count, kernel.tile, kernel.step};
  parallel_teams(stream, static_cast<int>(kernel.count / kernel.tile), sized, Residency::any, on_chip_bytes(kernel.tile),
                 order(programmatic));
}

// A step that reads the keys from `from` and leaves them in `to`; only the
// on-chip steps, which every sort starts and ends with, take them elsewhere,
// and move whole tiles there.
// The on-chip stages are compiled for tiles up to largest_tile; a larger one
// would leave its stages undone, so it is refused here as well as by the ladder.
void require_compiled_tile(std::uint64_t tile) {
  if (std::string why = uncompiled_tile_reason(tile); !why.empty()) throw RuntimeFailure(why);
}

void launch_fused_step(Stream& stream, std::uint32_t* from, std::uint32_t* keys, std::uint32_t* to, std::uint64_t count,
                       std::uint64_t tile, const FusedStep& step, bool programmatic) {
  require_compiled_tile(tile);
  if (step.on_chip) {
    launch_on_chip_step<256>(stream, {from, to, count, tile, step}, programmatic);
  } else {
    parallel_for(stream, static_cast<std::int64_t>(count >> step.group.width), LongStep{keys, step}, order(programmatic));
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

void enqueue_on_chip(Stream& stream, std::uint32_t* keys, std::uint64_t count) {
  parallel_teams(stream, 1, OnChipSort{keys, static_cast<std::uint32_t>(count)}, Residency::any, on_chip_bytes(count));
}

}  // namespace ferry::dispatch
