// `ferry model beff --profile FILE`: the terms per transport from a file.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "model/beff_model.hpp"
#include "model/profile.hpp"

namespace ferry::model {
namespace {

TransportTerms from_results(const nlohmann::json& doc, const std::string& path) {
  TransportTerms terms;
  terms.origin = fmt::format("beff results {}", path);
  for (const auto& workload : doc.at("workloads")) {
    if (workload.value("name", "") != "beff") continue;
    terms.devices = workload.at("config").value("participants", 0);
    for (const auto& row : workload.at("rows")) {
      if (row.value("section", "") != "model") continue;
      const auto& p = row.at("params");
      const std::string name = p.at("transport").get<std::string>();
      auto it = std::find_if(terms.transports.begin(), terms.transports.end(),
                             [&](const TransportModel& m) { return m.transport == name; });
      if (it == terms.transports.end()) it = terms.transports.insert(terms.transports.end(), {name, {}});
      ModelSegment segment;
      segment.up_to_bytes = p.at("up to bytes").get<std::uint64_t>();
      segment.terms = {row.at("value").get<double>() * 1e-6, p.at("B GB/s").get<double>() * 1e9};
      segment.basis = p.value("basis", "");
      it->segments.push_back(segment);
    }
  }
  if (terms.transports.empty())
    throw UsageError(fmt::format("'{}' holds no beff model terms: give the results of `ferry run beff --json`", path));
  return terms;
}

TransportTerms from_profile(const std::string& text, const std::string& path) {
  const MachineProfile profile = profile_from_json(text, path);
  TransportTerms terms;
  terms.origin = fmt::format("machine profile {}", path);
  double latency = 0, per_direction = 0;
  for (const PeerProfile& p : profile.peers) {
    // Profiles from before beff have no event-timed latency or two-way rate: the host view and one way stand in.
    const double l = p.copy_engine_latency_s > 0 ? p.copy_engine_latency_s : p.latency_s;
    const double b = p.bidirectional_Bps > 0 ? p.bidirectional_Bps / 2 : p.copy_Bps;
    latency = std::max(latency, l);
    per_direction = per_direction == 0 ? b : std::min(per_direction, b);
  }
  if (profile.peers.empty() || per_direction <= 0)
    throw UsageError(fmt::format("'{}' has no peer figures: run `ferry probe --devices 0,1 -o FILE` on two or more GPUs",
                                 path));
  terms.devices = static_cast<int>(profile.devices.size());
  terms.transports.push_back({"p2p-ce", {{~0ull, {latency, per_direction}, "link profile: peer copy latency + rate"}}});
  return terms;
}

}  // namespace

TransportTerms read_transport_terms(const std::string& path) {
  const std::string text = read_file(path);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(fmt::format("'{}' is not JSON ({})", path, e.what()));
  }
  const std::string schema = doc.is_object() ? doc.value("schema", "") : "";
  if (schema == MachineProfile::schema) return from_profile(text, path);
  if (schema != "ferry.results/1")
    throw UsageError(fmt::format("'{}' is neither a ferry results file nor a machine profile", path));
  try {
    return from_results(doc, path);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("'{}' is not a ferry results file: {}", path, e.what()));
  }
}

}  // namespace ferry::model
