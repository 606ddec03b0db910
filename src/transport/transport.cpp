#include "transport/transport.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/text.hpp"
#include "transport/transports.hpp"

namespace ferry::transport {

const std::vector<Kind>& all_kinds() {
  static const std::vector<Kind> kinds = {Kind::p2p_ce,         Kind::p2p_sm,      Kind::nccl,       Kind::nccl_graph,
                                          Kind::nccl_graph_reg, Kind::host_staged, Kind::mpi_staged, Kind::mpi_cuda};
  return kinds;
}

std::string_view to_string(Kind kind) {
  switch (kind) {
    case Kind::p2p_ce: return "p2p-ce";
    case Kind::p2p_sm: return "p2p-sm";
    case Kind::nccl: return "nccl";
    case Kind::nccl_graph: return "nccl-graph";
    case Kind::nccl_graph_reg: return "nccl-graph-reg";
    case Kind::host_staged: return "host-staged";
    case Kind::mpi_staged: return "mpi-staged";
    case Kind::mpi_cuda: return "mpi-cuda";
  }
  return "?";
}

std::vector<Kind> parse_kinds(std::string_view text) {
  if (text == "all") return all_kinds();
  const std::string known = join(all_kinds(), ", ", [](Kind k) { return std::string(to_string(k)); });
  std::vector<Kind> kinds;
  for (std::string_view name : split(text, ',')) {
    const auto it = std::find_if(all_kinds().begin(), all_kinds().end(), [&](Kind k) { return to_string(k) == name; });
    if (it == all_kinds().end())
      throw UsageError(fmt::format("unknown transport '{}': choose all, or some of {}", name, known));
    if (std::find(kinds.begin(), kinds.end(), *it) != kinds.end())
      throw UsageError(fmt::format("transport '{}' is listed twice", name));
    kinds.push_back(*it);
  }
  return kinds;
}

std::optional<Kind> best_nccl(const std::vector<std::pair<Kind, double>>& figures) {
  std::optional<Kind> best;
  double best_figure = 0;
  for (const auto& [kind, figure] : figures) {
    if (!is_nccl(kind)) continue;
    // The earlier variant keeps a tie: the simpler way of calling NCCL, when it does as well.
    if (!best || figure > best_figure) best = kind, best_figure = figure;
  }
  return best;
}

AreaMemory run_area_memory(const World& world) { return world.distributed() ? AreaMemory::shared : AreaMemory::device; }

AreaMemory area_memory(Kind kind, const World& world) {
  return kind == Kind::nccl_graph_reg ? AreaMemory::nccl : run_area_memory(world);
}

Buffer allocate_area(AreaMemory memory, Backend& backend, int device, std::uint64_t bytes) {
  switch (memory) {
    case AreaMemory::device: return backend.allocate_device(device, bytes);
    case AreaMemory::shared: return backend.allocate_device_shared(device, bytes);
    case AreaMemory::nccl: break;
  }
  require_free_memory(backend, device, bytes);
  return allocate_nccl_area(device, bytes);
}

Route peers_of(const ExchangePlan& plan, int participant, int k) {
  Route peers;
  for (std::int64_t i = 0; i < std::min<std::int64_t>(2, plan.exchanges()); ++i) {
    const Route r = plan.route(participant, i, k);
    if (r.send_to >= 0) peers.send_to = r.send_to;
    if (r.receive_from >= 0) peers.receive_from = r.receive_from;
  }
  return peers;
}

std::string unavailable_reason(Kind kind, Backend& backend, const World& world, const Group& group) {
  switch (kind) {
    case Kind::p2p_ce:
    case Kind::p2p_sm: return peer_reason(kind, backend, world, group);
    case Kind::nccl:
    case Kind::nccl_graph:
    case Kind::nccl_graph_reg: return nccl_reason(kind, backend, world, group);
    case Kind::host_staged: return host_staged_reason(world, group);
    case Kind::mpi_staged:
    case Kind::mpi_cuda: return mpi_reason(kind, backend, world, group);
  }
  return "unknown transport";
}

std::string unavailable_anywhere(Kind kind, Backend& backend, const World& world, const Group& group) {
  const std::string mine = unavailable_reason(kind, backend, world, group);
  const std::vector<std::string> reasons = world.gather(mine);
  if (world.all(mine.empty())) return "";
  if (world.rank() != 0) return "not on every rank";
  const bool same_everywhere =
      std::all_of(reasons.begin(), reasons.end(), [&](const auto& r) { return r == reasons[0]; });
  for (std::size_t r = 0; r < reasons.size(); ++r)
    if (!reasons[r].empty()) return same_everywhere ? reasons[r] : fmt::format("rank {}: {}", r, reasons[r]);
  return "not on every rank";
}

std::unique_ptr<Transport> open(Kind kind, Backend& backend, World& world, const Group& group, const Options& options) {
  switch (kind) {
    case Kind::p2p_ce:
      return world.distributed() ? open_p2p_ce_across_ranks(backend, world, group, options)
                                 : open_p2p_ce(backend, group);
    case Kind::p2p_sm: return open_p2p_sm(backend, world, group, options);
    case Kind::nccl:
    case Kind::nccl_graph:
    case Kind::nccl_graph_reg: return open_nccl(kind, backend, world, group);
    case Kind::host_staged: return open_host_staged(backend, group);
    case Kind::mpi_staged: return open_mpi_staged(backend, group);
    case Kind::mpi_cuda: return open_mpi_cuda(backend, group);
  }
  throw UsageError("unknown transport");
}

}  // namespace ferry::transport
