#include "run/beff_prediction.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bench/beff/beff.hpp"
#include "core/progress.hpp"
#include "core/results_json.hpp"
#include "core/units.hpp"
#include "transport/world.hpp"

namespace ferry {
namespace {

bool crosses_nodes(const std::string& transport) { return transport != "p2p-ce" && transport != "p2p-sm"; }

}  // namespace

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
  const model::LinkTerms& network = rings.network;
  WorkloadResult prediction;
  prediction.workload = "beff-model";
  prediction.config = {{"terms", terms.origin},
                       {"per_node", static_cast<std::int64_t>(per_node)},
                       {"network_latency_s", network.latency_s},
                       {"network_GBps", to_GBps(network.bandwidth_Bps)}};
  prediction.sections = {
      {"prediction", fmt::format("b_eff predicted for rings larger than this machine ({} devices a "
                                 "node; between nodes {:.3g} GB/s and {:.3g} us per hop)",
                                 per_node, to_GBps(network.bandwidth_Bps), to_us(network.latency_s))}};
  const std::vector<std::uint64_t> sizes = beff::definition_sizes();
  for (const model::TransportModel& m : terms.transports) {
    for (int n : rings.devices) {
      if (n > per_node && !crosses_nodes(m.transport)) {
        prediction.skipped.push_back(
            fmt::format("{} x {}: {} stays within one node ({} devices)", m.transport, n, m.transport, per_node));
        continue;
      }
      const model::RingPrediction p = model::predict_ring(m, n, per_node, network, crosses_nodes(m.transport), sizes);
      Row row;
      row.section = "prediction";
      row.metric = Metric::rate;
      row.derived = p.beff_ring_Bps;
      row.params = {{"transport", m.transport},
                    {"devices", static_cast<std::int64_t>(n)},
                    {"nodes", static_cast<std::int64_t>((n + per_node - 1) / per_node)},
                    {"per device GB/s", to_GBps(p.beff_per_device_Bps)},
                    {"dominant term", p.dominant}};
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
  prediction.notes.push_back(fmt::format(
      "terms from {}{}; a ring spanning nodes moves in lockstep, so its slowest hop (the network's: {}) paces every "
      "device",
      terms.origin, terms.devices > 0 ? fmt::format(" (measured on {} devices)", terms.devices) : "",
      rings.network_origin));
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
