#include "bench/dispatch/dispatch_ladder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::dispatch {
namespace {

constexpr MemoryKind pageable = MemoryKind::pageable, pinned = MemoryKind::pinned, mapped = MemoryKind::mapped;

const RungPlan plans[] = {
    {.name = "baseline",
     .change = "per kernel: create an event, launch, record, host-wait, destroy; pageable host memory",
     .host = pageable,
     .event_per_kernel = true,
     .fresh_events = true},
    {.name = "+prealloc",
     .change = "the events created once in set-up and reused",
     .host = pageable,
     .event_per_kernel = true},
    {.name = "+nohostsync",
     .change = "all kernels submitted at once, ordered by the stream; one wait at the end",
     .host = pageable},
    {.name = "+graph", .change = "the kernels captured once as a graph and replayed", .host = pageable, .graph = true},
    {.name = "+pinned", .change = "the host buffers pinned", .host = pinned, .graph = true},
    {.name = "+pdl",
     .change = "programmatic dependent launch: each kernel launches while the one before drains",
     .host = pinned,
     .graph = true,
     .programmatic = true},
    {.name = "+fused",
     .change = "passes shorter than a tile run on chip, many to a kernel; only longer ones go through device memory",
     .host = pinned,
     .graph = true,
     .programmatic = true,
     .fused = true},
    {.name = "+persistent",
     .change = "+fused's kernels as one cooperative kernel, a grid barrier where each ended",
     .host = pinned,
     .fused = true,
     .persistent = true},
    {.name = "+onchip",
     .change = "one team sorts every key in its on-chip memory: no barrier at all",
     .host = pinned,
     .on_chip = true},
    {.name = "+zerocopy",
     .change =
         "+fused without copies: its first kernel reads the keys from mapped host memory, its last writes them there",
     .host = mapped,
     .graph = true,
     .programmatic = true,
     .fused = true,
     .zero_copy = true},
    {.name = "+cluster",
     .change = "+zerocopy's kernels as one kernel of a thread-block cluster holding every key on chip; the longer "
               "passes reach the other teams' on-chip memory between cluster barriers",
     .host = mapped,
     .graph = true,
     .fused = true,
     .zero_copy = true,
     .cluster = true},
    {.name = "+resident",
     .change = "+cluster's kernel launched once and left running: a sort is a doorbell the host rings in mapped "
               "memory and a flag per team it polls, with no launch and no stream sync",
     .host = mapped,
     .fused = true,
     .zero_copy = true,
     .cluster = true,
     .resident = true},
};

}  // namespace

const RungPlan& plan(Rung rung) { return plans[static_cast<int>(rung)]; }

Rung parse_rung(std::string_view text) {
  const std::string_view bare = text.substr(!text.empty() && text.front() == '+' ? 1 : 0);
  for (Rung rung : ladder) {
    std::string_view name = plan(rung).name;
    if (name.front() == '+') name.remove_prefix(1);
    if (name == bare) return rung;
  }
  throw UsageError(fmt::format("unknown rung '{}': the ladder is {}", text,
                               join(ladder, ",", [](Rung r) { return std::string(plan(r).name); })));
}

std::vector<Rung> parse_rungs(std::string_view text) {
  std::vector<Rung> rungs;
  for (std::string_view item : split(text, ',')) rungs.push_back(parse_rung(item));
  std::sort(rungs.begin(), rungs.end());
  rungs.erase(std::unique(rungs.begin(), rungs.end()), rungs.end());
  return rungs;
}

std::string unavailable_reason(Rung rung, std::uint64_t keys, std::uint64_t tile, const Capabilities& capabilities,
                               const DeviceFeatures& features) {
  const RungPlan& p = plan(rung);
  if (p.graph && !capabilities.graphs) return "the backend cannot capture and replay graphs";
  if (p.programmatic && !features.programmatic_launch)
    return "the device has no programmatic dependent launch (Hopper, compute capability 9.0, and later; the "
           "emulator's streams always wait for the work before)";
  if (p.persistent && !features.all_teams_at_once) return "the device cannot launch cooperative kernels";
  if (p.zero_copy && !capabilities.mapped_memory) return "the backend has no mapped host memory for kernels to reach";
  if (p.cluster && features.cluster_teams <= 0)
    return "the device launches no thread-block clusters (Hopper, compute capability 9.0, and later)";
  const std::uint64_t on_chip = p.on_chip ? keys : std::min(tile, keys);
  if (p.cluster && keys / on_chip > static_cast<std::uint64_t>(features.cluster_teams))
    return fmt::format("{} keys in tiles of {} are {} teams; one cluster holds at most {}", keys, on_chip,
                       keys / on_chip, features.cluster_teams);
  if (p.fused && on_chip > largest_tile) return uncompiled_tile_reason(on_chip);
  if ((p.fused || p.on_chip) && on_chip_bytes(on_chip) > features.team_shared_bytes)
    return fmt::format("{} keys need {} of on-chip memory; one team gets {}", on_chip,
                       format_bytes(on_chip_bytes(on_chip)), format_bytes(features.team_shared_bytes));
  return "";
}

}  // namespace ferry::dispatch
