#include "backend/launch.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"

namespace ferry::dispatch {
namespace {

StreamOrder order(bool programmatic) { return programmatic ? StreamOrder::programmatic : StreamOrder::complete; }

// A thread per group of 8 keys, up to 256 a team (a tile of 2048 keys in one go).
template <int Threads>
void launch_on_chip_step(Stream& stream, std::uint32_t* keys, std::uint64_t count, std::uint64_t tile,
                         const FusedStep& step, bool programmatic) {
  if (Threads > 32 && tile / 8 < Threads)
    return launch_on_chip_step<(Threads > 32 ? Threads / 2 : 32)>(stream, keys, count, tile, step, programmatic);
  parallel_teams(stream, static_cast<int>(count / tile), OnChipStep<Threads>{keys, count, tile, step}, Residency::any,
                 on_chip_bytes(tile), order(programmatic));
}

}  // namespace

void enqueue_pass(Stream& stream, std::uint32_t* keys, std::uint64_t count, Pass pass, bool programmatic) {
  parallel_for(stream, static_cast<std::int64_t>(count / 2), PassKernel{keys, pass}, order(programmatic));
}

void enqueue_fused_step(Stream& stream, std::uint32_t* keys, std::uint64_t count, std::uint64_t tile,
                        const FusedStep& step, bool programmatic) {
  if (step.on_chip) {
    launch_on_chip_step<256>(stream, keys, count, tile, step, programmatic);
  } else {
    parallel_for(stream, static_cast<std::int64_t>(count >> step.group.width), LongStep{keys, step}, order(programmatic));
  }
}

void enqueue_persistent(Stream& stream, std::uint32_t* keys, std::uint64_t count, std::uint64_t tile, int teams) {
  parallel_teams(stream, teams, PersistentFusedSort{keys, count, tile}, Residency::all_at_once, on_chip_bytes(tile));
}

int persistent_capacity(Stream& stream, std::uint64_t tile) {
  return resident_teams(stream, PersistentFusedSort{nullptr, 0, 0}, on_chip_bytes(tile));
}

void enqueue_on_chip(Stream& stream, std::uint32_t* keys, std::uint64_t count) {
  parallel_teams(stream, 1, OnChipSort{keys, static_cast<std::uint32_t>(count)}, Residency::any, on_chip_bytes(count));
}

}  // namespace ferry::dispatch
