// `ferry model beff --profile FILE`: the terms per transport from a file.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "core/units.hpp"
#include "model/beff_model.hpp"
#include "model/profile.hpp"

namespace ferry::model {
namespace {

// The params that find a row of these sections; the others are results of the
// run (a residual, a looplength). Rows of other sections are named by all their params.
const std::map<std::pair<std::string, std::string>, std::vector<std::string>> naming_params = {
    {{"beff", "beff"}, {"transport", "devices"}},
    {{"beff", "ring"}, {"transport", "MSize bytes"}},
    {{"beff", "exchange"}, {"transport", "participant", "bytes"}},
    {{"beff", "latency"}, {"transport", "bytes"}},
    {{"beff", "model"}, {"transport", "up to bytes"}},
};

std::string param_text(const std::string& key, const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  const bool size = key.size() >= 5 && key.compare(key.size() - 5, 5, "bytes") == 0;
  if (size && value.is_number_unsigned()) return format_bytes(value.get<std::uint64_t>());
  return value.dump();
}

// "beff ring (transport=p2p-ce, MSize bytes=4 KiB)"
std::string row_name(const std::string& workload, const nlohmann::json& row) {
  const std::string section = row.value("section", "");
  const nlohmann::json& params = row.at("params");
  std::vector<std::string> parts;
  const auto named = naming_params.find({workload, section});
  if (named != naming_params.end()) {
    for (const std::string& key : named->second)
      if (params.contains(key)) parts.push_back(fmt::format("{}={}", key, param_text(key, params.at(key))));
  } else {
    for (const auto& [key, value] : params.items()) parts.push_back(fmt::format("{}={}", key, param_text(key, value)));
  }
  std::string joined;
  for (const std::string& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  return fmt::format("{} {} ({})", workload, section, joined);
}

// Every row of every workload counts: a beff file's link rows are p2p-ce's terms.
void note_failures(const nlohmann::json& doc, TransportTerms& terms) {
  terms.run_failed = doc.value("verification", "") == "FAILED";
  for (const auto& workload : doc.at("workloads")) {
    const std::string name = workload.value("name", "");
    if (workload.value("verification", "") == "FAILED") terms.run_failed = true;
    for (const auto& row : workload.at("rows"))
      if (row.value("check", "") == "FAILED") terms.failed_rows.push_back(row_name(name, row));
  }
}

// A model row's terms: t_lat (its value, us) may be 0, the fit's floor when the
// smaller size leaves no time over the bandwidth's share; B is a rate, above 0.
LinkTerms model_row_terms(const nlohmann::json& row, const std::string& path) {
  const nlohmann::json& latency_us = row.at("value");
  const nlohmann::json& GBps = row.at("params").at("B GB/s");
  const auto refuse = [&](const char* key, const nlohmann::json& value) {
    return UsageError(fmt::format("'{}': {} \"{}\" is {}, and a model row's t_lat (value, us) is 0 or more and its "
                                  "B above 0: rerun `ferry run beff --json`",
                                  path, row_name("beff", row), key, value.dump()));
  };
  const double latency_s = latency_us.get<double>() * 1e-6, bandwidth_Bps = GBps.get<double>() * 1e9;
  if (!(latency_s >= 0) || !std::isfinite(latency_s)) throw refuse("value", latency_us);
  if (!(bandwidth_Bps > 0) || !std::isfinite(bandwidth_Bps)) throw refuse("B GB/s", GBps);
  return {latency_s, bandwidth_Bps};
}

// An exchange row's participant and host, into hosts (a slot per participant; a file of 2^20 or more is not a ring).
void place_participant(const nlohmann::json& params, std::vector<std::string>& hosts) {
  if (!params.contains("participant") || !params.contains("host")) return;
  const auto participant = whole_number<std::size_t>(params, "participant");
  if (participant >= (1u << 20)) throw std::range_error(fmt::format("participant {} is past any ring", participant));
  if (hosts.size() <= participant) hosts.resize(participant + 1);
  hosts[participant] = params.at("host").get<std::string>();
}

// "interrupted by SIGINT; 11 rows, 12 of 40 steps"; empty for a complete file.
std::string incomplete_in_words(const nlohmann::json& doc) {
  if (!doc.contains("incomplete")) return "";
  const nlohmann::json& ended = doc.at("incomplete");
  const auto steps_planned = whole_number_or<std::uint64_t>(ended, "steps_planned", 0);
  const auto steps_done = whole_number_or<std::uint64_t>(ended, "steps_done", 0);
  return fmt::format("{}; {} rows, {} steps", ended.value("reason", "no reason given"),
                     whole_number_or<std::uint64_t>(ended, "rows_done", 0),
                     steps_planned > 0 ? fmt::format("{} of {}", steps_done, steps_planned)
                                       : std::to_string(steps_done));
}

TransportTerms from_results(const nlohmann::json& doc, const std::string& path) {
  TransportTerms terms;
  terms.origin = path;
  note_failures(doc, terms);
  terms.incomplete = incomplete_in_words(doc);
  for (const auto& workload : doc.at("workloads")) {
    if (workload.value("name", "") != "beff") continue;
    terms.devices = whole_number_or<int>(workload.at("config"), "participants", 0);
    for (const auto& row : workload.at("rows")) {
      if (row.value("section", "") == "exchange" && row.contains("params")) {
        const auto& p = row.at("params");
        const bool other_rank = p.value("rank", 0) != 0;
        if (other_rank) terms.layout = Layout::rank_per_device;
        else if (terms.layout == Layout::unknown) terms.layout = Layout::one_process;
        place_participant(p, terms.participant_hosts);
      }
      if (row.value("section", "") == "beff" && row.contains("params") && row.at("params").contains("per device GB/s"))
        terms.beff_per_device_Bps.emplace_back(row.at("params").at("transport").get<std::string>(),
                                               row.at("params").at("per device GB/s").get<double>() * 1e9);
      if (row.value("section", "") != "model") continue;
      const auto& p = row.at("params");
      const std::string name = p.at("transport").get<std::string>();
      auto it = std::find_if(terms.transports.begin(), terms.transports.end(),
                             [&](const TransportModel& m) { return m.transport == name; });
      if (it == terms.transports.end()) it = terms.transports.insert(terms.transports.end(), {name, {}});
      ModelSegment segment;
      segment.up_to_bytes = whole_number<std::uint64_t>(p, "up to bytes");
      segment.terms = model_row_terms(row, path);
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

LinkTerms hop_terms(const TransportModel& model) {
  if (model.segments.empty()) throw std::logic_error("a transport model without terms");
  return {model.segments.front().terms.latency_s, model.segments.back().terms.bandwidth_Bps};
}

std::string ring_hosts_in_words(const TransportTerms& terms) {
  std::string words;
  for (std::size_t p = 0; p < terms.participant_hosts.size(); ++p) {
    const std::string& host = terms.participant_hosts[p];
    if (p > 0 && host == terms.participant_hosts[p - 1]) continue;
    words += (words.empty() ? "" : ", ") + (host.empty() ? std::string("(not named)") : host);
  }
  return words;
}

int participants_per_host(const TransportTerms& terms) {
  std::map<std::string, int> count;
  int most = 0;
  for (const std::string& host : terms.participant_hosts) most = std::max(most, ++count[host]);
  return most;
}

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

TransportTerms read_transport_terms(const std::string& path) {
  return transport_terms_from_json(read_file(path), path);
}

}  // namespace ferry::model
