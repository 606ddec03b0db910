#include "bench/dispatch/dispatch_model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/units.hpp"

namespace ferry::dispatch {

std::optional<RungModel> model_rung(const RungPlan& plan, std::uint64_t keys, const Dispatches& d,
                                    const model::DeviceProfile& p) {
  const bool pinned = plan.host == MemoryKind::pinned;
  // +zerocopy's kernels read and write the host's keys themselves, at link's zero-copy kernel rates.
  const double h2d_Bps = plan.zero_copy ? p.zero_copy_read_Bps : pinned ? p.h2d_Bps : p.pageable_h2d_Bps;
  const double d2h_Bps = plan.zero_copy ? p.zero_copy_write_Bps : pinned ? p.d2h_Bps : p.pageable_d2h_Bps;
  if (!(h2d_Bps > 0 && d2h_Bps > 0 && p.device_copy_Bps > 0)) return std::nullopt;

  const double bytes = 4.0 * static_cast<double>(keys);
  const auto kernels = static_cast<double>(d.kernels), barriers = static_cast<double>(d.barriers);
  RungModel m;
  m.copies_s = plan.zero_copy
                   ? p.mapped_read_latency_s + bytes / h2d_Bps + bytes / d2h_Bps
                   : p.copy_engine_latency_h2d_s + bytes / h2d_Bps + p.copy_engine_latency_d2h_s + bytes / d2h_Bps;
  // The bytes of each kernel's sweep that its dispatch figure does not already hold.
  double kernel_bytes = bytes;

  std::string launches;
  // A graph of the kernels and the sync that waits for it. A node is priced as
  // one of a chain whose kernels each read what the one before wrote, as
  // passes do; as an empty kernel where the profile predates that figure.
  // A chain node's figure holds its own sweep of the chain's bytes.
  auto graph_nodes = [&](double dependent_s, double empty_s, const char* edges) {
    const bool dependent = dependent_s > 0;
    m.dispatch_s = kernels * (dependent ? dependent_s : empty_s) + p.sync_wakeup_s;
    if (dependent) kernel_bytes = std::max(0.0, bytes - p.dependent_kernel_bytes);
    launches = fmt::format("{} {}{}graph nodes + sync", d.kernels, dependent ? "dependent " : "", edges);
  };
  if (plan.resident) {
    if (!(p.flag_round_trip_s > 0) || (d.barriers > 0 && !(p.cluster_barrier_s > 0))) return std::nullopt;
    m.dispatch_s = p.flag_round_trip_s + barriers * p.cluster_barrier_s;
    launches = fmt::format("a doorbell and flag round trip + {} cluster barriers", d.barriers);
  } else if (plan.cluster) {
    if (d.barriers > 0 && !(p.cluster_barrier_s > 0)) return std::nullopt;
    m.dispatch_s = p.graph_per_kernel_s + p.sync_wakeup_s + barriers * p.cluster_barrier_s;
    launches = fmt::format("1 graph node + sync + {} cluster barriers", d.barriers);
  } else if (plan.one_kernel()) {
    if (d.barriers > 0 && !(p.grid_barrier_s > 0)) return std::nullopt;
    m.dispatch_s = p.launch_and_sync_s + barriers * p.grid_barrier_s;
    launches = d.barriers > 0 ? fmt::format("1 launch + sync + {} grid barriers", d.barriers) : "1 launch + sync";
  } else if (plan.event_per_kernel) {
    m.dispatch_s = kernels * p.launch_and_sync_s;
    launches = fmt::format("{} x (launch + sync)", d.kernels);
  } else if (plan.graph && plan.programmatic && p.programmatic_graph_per_kernel_s > 0) {
    graph_nodes(p.dependent_programmatic_graph_per_kernel_s, p.programmatic_graph_per_kernel_s, "programmatic ");
  } else if (plan.graph) {
    graph_nodes(p.dependent_graph_per_kernel_s, p.graph_per_kernel_s, "");
  } else {
    m.dispatch_s = kernels * p.launch_per_kernel_s + p.sync_wakeup_s;
    launches = fmt::format("{} stream launches + sync", d.kernels);
  }
  if (!(m.dispatch_s > 0)) return std::nullopt;
  // Each kernel, and each stretch between grid barriers, reads every key and
  // writes at most every key: a device copy's traffic. Passes inside a
  // stretch stay on chip, and in a cluster every pass does.
  m.compute_s = plan.cluster ? 0 : (kernels * kernel_bytes + barriers * bytes) / p.device_copy_Bps;
  const auto chain_bytes = static_cast<std::uint64_t>(p.dependent_kernel_bytes);
  const std::string beyond =
      kernel_bytes < bytes ? fmt::format(" beyond the {} a node's figure holds", format_bytes(chain_bytes)) : "";
  const std::string traffic =
      plan.cluster   ? "every pass on chip (not modelled)"
      : plan.on_chip ? "keys in and out of on-chip memory (passes on chip not modelled)"
      : plan.fused   ? fmt::format("a device copy's traffic per step{} (passes on chip not modelled)", beyond)
                     : fmt::format("passes at device copy rate{}", beyond);
  const std::string keys_moved = plan.zero_copy ? std::string("keys read and written over the link by the kernels")
                                                : fmt::format("{} copies", to_string(plan.host));
  m.basis = fmt::format("{} + {} + {}", launches, keys_moved, traffic);
  return m;
}

}  // namespace ferry::dispatch
