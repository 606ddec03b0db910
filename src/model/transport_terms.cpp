// `ferry model beff --profile FILE`: the terms per transport from a file.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "model/beff_model.hpp"
#include "model/profile.hpp"

namespace ferry::model {
namespace {

TransportTerms from_results(const nlohmann::json& doc, const std::string& path) {
  TransportTerms terms;
  terms.origin = path;
  for (const auto& workload : doc.at("workloads")) {
    if (workload.value("name", "") != "beff") continue;
    terms.devices = whole_number_or<int>(workload.at("config"), "participants", 0);
    for (const auto& row : workload.at("rows")) {
      if (row.value("section", "") != "model") continue;
      const auto& p = row.at("params");
      const std::string name = p.at("transport").get<std::string>();
      auto it = std::find_if(terms.transports.begin(), terms.transports.end(),
                             [&](const TransportModel& m) { return m.transport == name; });
      if (it == terms.transports.end()) it = terms.transports.insert(terms.transports.end(), {name, {}});
      ModelSegment segment;
      segment.up_to_bytes = whole_number<std::uint64_t>(p, "up to bytes");
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
  std::optional<LinkTerms> slowest;
  for (const PeerProfile& p : profile.peers) {
    const std::optional<LinkTerms> pair = copy_engine_terms(p);
    if (!pair) continue;
    if (!slowest) slowest = pair;
    slowest->latency_s = std::max(slowest->latency_s, pair->latency_s);
    slowest->bandwidth_Bps = std::min(slowest->bandwidth_Bps, pair->bandwidth_Bps);
  }
  if (!slowest)
    throw UsageError(fmt::format("'{}' has no peer copy figures for p2p-ce's terms: run `ferry probe --devices 0,1 "
                                 "-o FILE` on two or more GPUs",
                                 path));
  TransportTerms terms;
  terms.origin = fmt::format("machine profile {}", path);
  terms.devices = static_cast<int>(profile.devices.size());
  terms.transports.push_back(
      {"p2p-ce", {{~0ull, *slowest, "link profile: 8 B copy one way, 2 MiB copies both ways at once"}}});
  return terms;
}

}  // namespace

TransportTerms transport_terms_from_json(const std::string& text, const std::string& origin) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number past a double's range
    throw UsageError(fmt::format("'{}' is not JSON ({})", origin, e.what()));
  }
  const bool has_schema = doc.is_object() && doc.contains("schema") && doc["schema"].is_string();
  const std::string schema = has_schema ? doc["schema"].get<std::string>() : "";
  if (schema == MachineProfile::schema) return from_profile(text, origin);
  if (schema != "ferry.results/1")
    throw UsageError(fmt::format("'{}' is neither a ferry results file nor a machine profile", origin));
  try {
    return from_results(doc, origin);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("'{}' is not a ferry results file: {}", origin, e.what()));
  } catch (const std::range_error& e) {
    throw UsageError(fmt::format("'{}' is not a ferry results file: {}", origin, e.what()));
  }
}

TransportTerms read_transport_terms(const std::string& path) { return transport_terms_from_json(read_file(path), path); }

}  // namespace ferry::model
