#include "backend/launch.hpp"
#include "bench/dispatch/bitonic.hpp"

namespace ferry::dispatch {

void enqueue_pass(Stream& stream, std::uint32_t* keys, std::uint64_t count, Pass pass, bool programmatic) {
  parallel_for(stream, static_cast<std::int64_t>(count / 2), PassKernel{keys, pass},
               programmatic ? StreamOrder::programmatic : StreamOrder::complete);
}

void enqueue_persistent(Stream& stream, std::uint32_t* keys, std::uint64_t count, int teams) {
  parallel_teams(stream, teams, PersistentSort{keys, count}, Residency::all_at_once);
}

int persistent_capacity(Stream& stream) { return resident_teams(stream, PersistentSort{nullptr, 0}); }

void enqueue_on_chip(Stream& stream, std::uint32_t* keys, std::uint64_t count) {
  parallel_teams(stream, 1, OnChipSort{keys, static_cast<std::uint32_t>(count)}, Residency::any, on_chip_bytes(count));
}

}  // namespace ferry::dispatch
