#pragma once
// The dispatch ladder: each rung runs the same bitonic sort with one more
// dispatch optimization than the rung above it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"

namespace ferry::dispatch {

enum class Rung {
  baseline,
  prealloc,
  nohostsync,
  graph,
  pinned,
  pdl,
  fused,
  persistent,
  onchip,
  zerocopy,
  cluster,
  resident
};

inline constexpr Rung ladder[] = {Rung::baseline, Rung::prealloc, Rung::nohostsync, Rung::graph,
                                  Rung::pinned,   Rung::pdl,      Rung::fused,      Rung::persistent,
                                  Rung::onchip,   Rung::zerocopy, Rung::cluster,    Rung::resident};

// How a rung dispatches the sort's passes.
struct RungPlan {
  std::string_view name;    // "+graph"
  std::string_view change;  // what it adds to the rung above
  MemoryKind host = MemoryKind::pageable;
  bool event_per_kernel = false;  // host-waits on an event after every kernel
  bool fresh_events = false;      // ... created and destroyed per kernel
  bool graph = false;             // the kernels replayed from a graph captured once
  bool programmatic = false;      // each kernel launched while the one before drains
  bool fused = false;             // the fused plan: passes shorter than a tile run on chip, many to a step
  bool persistent = false;        // the steps in one cooperative kernel, a grid barrier between them
  bool on_chip = false;           // one team sorts in its on-chip memory
  bool zero_copy =
      false;  // no copies: the first kernel reads the keys from mapped host memory, the last writes them there
  bool cluster = false;   // the fused plan in one kernel of a thread-block cluster, every key in its on-chip memory
  bool resident = false;  // that kernel launched once: a doorbell and done flags in mapped memory per sort
  bool one_kernel() const { return persistent || on_chip || cluster; }
};

const RungPlan& plan(Rung rung);

// What one sort costs a rung in dispatch: the kernels it launches, and the grid (or cluster) barriers inside them.
struct Dispatches {
  std::size_t kernels = 0;
  std::size_t barriers = 0;
};

// "graph" or "+graph" -> Rung::graph; throws UsageError naming the rungs there are.
Rung parse_rung(std::string_view text);
// "baseline,+graph" -> those rungs in ladder order, each once.
std::vector<Rung> parse_rungs(std::string_view text);

// Empty when the device can run the rung on `keys` keys (fused rungs in tiles
// of `tile` keys), else why not.
std::string unavailable_reason(Rung rung, std::uint64_t keys, std::uint64_t tile, const Capabilities& capabilities,
                               const DeviceFeatures& features);

}  // namespace ferry::dispatch
