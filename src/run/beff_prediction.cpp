#include "run/beff_prediction.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bench/beff/beff.hpp"
#include "core/progress.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "transport/world.hpp"

namespace ferry {
namespace {

bool crosses_nodes(const std::string& transport) { return transport != "p2p-ce" && transport != "p2p-sm"; }

// The transport's measured b_eff per device in the ring; 0 when the ring did not run it.
double measured_beff_Bps(const model::TransportTerms& ring, const std::string& transport) {
  for (const auto& [name, Bps] : ring.beff_per_device_Bps)
    if (name == transport) return Bps;
  return 0;
}

// "measured: FILE, a ring of 4 on node1, node2, node3, node4 (1 a host): mpi-staged 0.003381 GB/s per device,
// predicted 0.00317 (residual +6.7%)"; and where the measured ring sets its hosts other than the prediction, that too.
std::string measured_in_words(const model::TransportTerms& ring, int per_node, const std::string& compared) {
  const int per_host = model::participants_per_host(ring);
  std::string words = fmt::format("measured: {}, a ring of {} on {} ({} a host): {}", ring.origin, ring.devices,
                                  model::ring_hosts_in_words(ring), per_host,
                                  compared.empty() ? "no predicted ring has its size and transport" : compared);
  if (per_host != per_node)
    words += fmt::format("; it has {} devices a host where the prediction has {} (--per-node)", per_host, per_node);
  return words;
}

}  // namespace

const NetworkHop& LargerRings::network_for(const std::string& transport) const {
  for (const auto& [name, hop] : measured_network)
    if (name == transport) return hop;
  return network;
}

model::TransportTerms measure_transport_terms(Backend& backend, Results& results, bool quiet) {
  beff::BeffConfig config = beff::BeffConfig::defaults(backend.capabilities(), true);
  for (int d = 0; d < backend.device_count(); ++d) config.devices.push_back(d);
  results.workloads.push_back(beff::run(backend, world(), config, {}, Progress("beff", !quiet)));
  // Read back as `--profile` would read the same run's file: one reader of the terms.
  return model::transport_terms_from_json(results_to_json(results), "a quick beff run on this machine");
}

std::string failures_in_words(const model::TransportTerms& terms) {
  const std::size_t n = terms.failed_rows.size();
  if (n == 0) return "its verification says FAILED";
  constexpr std::size_t named = 5;
  std::string list;
  for (std::size_t i = 0; i < std::min(n, named); ++i) list += (i == 0 ? "" : "; ") + terms.failed_rows[i];
  if (n > named) list += fmt::format("; and {} more", n - named);
  return fmt::format("{} row{} FAILED {} check: {}", n, n == 1 ? "" : "s", n == 1 ? "its" : "their", list);
}

WorkloadResult predict_larger_rings(const model::TransportTerms& terms, const LargerRings& rings,
                                    const std::string& failed_input) {
  const int per_node = rings.per_node;
  const model::LinkTerms& network = rings.network.terms;
  WorkloadResult prediction;
  prediction.workload = "beff-model";
  prediction.config = {{"terms", terms.origin},
                       {"per_node", static_cast<std::int64_t>(per_node)},
                       {"network_latency_s", network.latency_s},
                       {"network_GBps", to_GBps(network.bandwidth_Bps)}};
  if (!rings.measured_network_origin.empty())
    prediction.config.push_back({"network_measured", rings.measured_network_origin});
  if (rings.measured) prediction.config.push_back({"measured", rings.measured->origin});
  prediction.sections = {
      {"prediction",
       rings.measured_network.empty()
           ? fmt::format("b_eff predicted for rings larger than this machine ({} devices a node; between nodes "
                         "{:.3g} GB/s and {:.3g} us per hop)",
                         per_node, to_GBps(network.bandwidth_Bps), to_us(network.latency_s))
           : fmt::format("b_eff predicted for rings larger than this machine ({} devices a node; between nodes each "
                         "transport's hop as the network column says)",
                         per_node)}};
  const std::vector<std::uint64_t> sizes = beff::definition_sizes();
  std::string compared;  // each transport's measured ring beside its prediction, for the note
  for (const model::TransportModel& m : terms.transports) {
    for (int n : rings.devices) {
      if (n > per_node && !crosses_nodes(m.transport)) {
        prediction.skipped.push_back(
            fmt::format("{} x {}: {} stays within one node ({} devices)", m.transport, n, m.transport, per_node));
        continue;
      }
      const NetworkHop& hop = rings.network_for(m.transport);
      const model::RingPrediction p = model::predict_ring(m, n, per_node, hop.terms, crosses_nodes(m.transport), sizes);
      Row row;
      row.section = "prediction";
      row.metric = Metric::rate;
      row.derived = p.beff_ring_Bps;
      row.params = {{"transport", m.transport},
                    {"devices", static_cast<std::int64_t>(n)},
                    {"nodes", static_cast<std::int64_t>((n + per_node - 1) / per_node)},
                    {"per device GB/s", to_GBps(p.beff_per_device_Bps)}};
      if (!rings.measured_network.empty())
        row.params.push_back(
            {"network", p.spans_nodes ? fmt::format("{} ({}, {:.4g} us)", hop.source,
                                                    rate_text(hop.terms.bandwidth_Bps), to_us(hop.terms.latency_s))
                                      : std::string("-")});
      if (rings.measured) {
        const double measured = n == rings.measured->devices ? measured_beff_Bps(*rings.measured, m.transport) : 0;
        const std::string residual = residual_text(measured / p.beff_per_device_Bps);
        row.params.push_back(
            {"measured per device GB/s", measured > 0 ? fmt::format("{:.4g}", to_GBps(measured)) : "-"});
        row.params.push_back({"residual (measured)", measured > 0 ? residual : "-"});
        if (measured > 0)
          compared +=
              fmt::format("{}{} {:.4g} GB/s per device, predicted {:.4g} (residual {})", compared.empty() ? "" : "; ",
                          m.transport, to_GBps(measured), to_GBps(p.beff_per_device_Bps), residual);
      }
      row.params.push_back({"dominant term", p.dominant});
      if (!failed_input.empty()) row.note = "from FAILED input";
      prediction.rows.push_back(std::move(row));
    }
  }
  const bool beyond_the_run =
      std::any_of(rings.devices.begin(), rings.devices.end(), [&](int n) { return n > terms.devices; });
  if (terms.layout == model::Layout::one_process && beyond_the_run)
    // On 4 x H200, from two devices in one process: p2p-sm -4.7%, but p2p-ce -15%, the NCCL variants -33% to
    // -55%, host-staged -40% (docs/beff.md); an exchange of nccl took 2.1-2.4x as long on four devices as on two.
    prediction.notes.push_back(
        "assumed: each device keeps the terms it had in the measured ring, as it does with a rank per device. These "
        "were measured in one process, where one thread issues every device's work and p2p-ce's graph spans every "
        "device, so an exchange there takes longer with more devices: the model leaves that out, and over-predicts "
        "such a process's larger rings (docs/beff.md, 2 -> 4 GPUs)");
  // The figures of --network-bandwidth and --network-latency where some transport crossing nodes goes without a
  // measured hop.
  const bool given_network_used =
      rings.measured_network.empty() ||
      std::any_of(terms.transports.begin(), terms.transports.end(), [&](const auto& m) {
        return crosses_nodes(m.transport) && &rings.network_for(m.transport) == &rings.network;
      });
  prediction.notes.push_back(fmt::format(
      "terms from {}{}; a ring spanning nodes moves in lockstep, so its slowest hop (the network's{}) paces every "
      "device",
      terms.origin, terms.devices > 0 ? fmt::format(" (measured on {} devices)", terms.devices) : "",
      given_network_used
          ? fmt::format(": {}{}", rings.measured_network.empty() ? "" : "where not measured, ", rings.network.origin)
          : ""));
  for (const auto& [transport, hop] : rings.measured_network)
    prediction.notes.push_back(fmt::format("network for {}: {}", transport, hop.origin));
  if (!rings.measured_network.empty())
    prediction.notes.push_back(
        "assumed: every hop between nodes costs what a hop of the measured ring did: each node's link carries one "
        "hop each way, as there, and what joins the nodes (a switch; the box's router) is no slower with more of them; "
        "and the network's and the transport's terms do not add: the slower of each (t_lat, B) paces the ring");
  if (rings.measured) prediction.notes.push_back(measured_in_words(*rings.measured, per_node, compared));
  if (!failed_input.empty()) {
    prediction.config.push_back({"input_verification", "FAILED"});
    prediction.config.push_back({"input_failed_rows", static_cast<std::int64_t>(terms.failed_rows.size())});
    prediction.notes.insert(prediction.notes.begin(),
                            fmt::format("FAILED input, modelled with --allow-failed: {} failed verification ({}); "
                                        "these predictions scale terms that may rest on data that arrived wrong",
                                        failed_input, failures_in_words(terms)));
  }
  return prediction;
}

}  // namespace ferry
