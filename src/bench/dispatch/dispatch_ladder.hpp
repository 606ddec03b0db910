#pragma once
// The dispatch ladder: each rung runs the same bitonic sort with one more
// dispatch optimization than the rung above it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"

namespace ferry::dispatch {

enum class Rung { baseline, prealloc, nohostsync, graph, pinned, pdl, persistent, onchip };

inline constexpr Rung ladder[] = {Rung::baseline, Rung::prealloc, Rung::nohostsync, Rung::graph,
                                  Rung::pinned,   Rung::pdl,      Rung::persistent, Rung::onchip};

// How a rung dispatches the sort's passes.
struct RungPlan {
  std::string_view name;    // "+graph"
  std::string_view change;  // what it adds to the rung above
  MemoryKind host = MemoryKind::pageable;
  bool event_per_kernel = false;  // host-waits on an event after every kernel
  bool fresh_events = false;      // ... created and destroyed per kernel
  bool graph = false;             // the kernels replayed from a graph captured once
  bool programmatic = false;      // each kernel launched while the one before drains
  bool persistent = false;        // one cooperative kernel, a grid barrier between passes
  bool on_chip = false;           // one team sorts in its on-chip memory
  bool one_kernel() const { return persistent || on_chip; }
};

const RungPlan& plan(Rung rung);

// "graph" or "+graph" -> Rung::graph; throws UsageError naming the rungs there are.
Rung parse_rung(std::string_view text);
// "baseline,+graph" -> those rungs in ladder order, each once.
std::vector<Rung> parse_rungs(std::string_view text);

// Empty when the device can run the rung on `keys` keys, else why not.
std::string unavailable_reason(Rung rung, std::uint64_t keys, const Capabilities& capabilities,
                               const DeviceFeatures& features);

}  // namespace ferry::dispatch
