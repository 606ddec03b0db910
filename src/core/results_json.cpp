#include "core/results_json.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/json_checksum.hpp"
#include "core/units.hpp"

namespace ferry {
namespace {

using nlohmann::ordered_json;

ordered_json to_json(const ParamValue& v) {
  return std::visit([](const auto& x) { return ordered_json(x); }, v);
}

ordered_json to_json(const Params& params) {
  ordered_json out = ordered_json::object();
  for (const auto& [key, value] : params) out[key] = to_json(value);
  return out;
}

const char* to_string(Metric m) { return m == Metric::rate ? "rate" : "latency"; }
const char* unit_of(Metric m) { return m == Metric::rate ? "GB/s" : "us"; }
double shown(Metric m, double base) { return m == Metric::rate ? to_GBps(base) : to_us(base); }

const char* to_string(Check c) {
  switch (c) {
    case Check::passed: return "PASSED";
    case Check::failed: return "FAILED";
    case Check::not_applicable: return "n/a";
  }
  return "n/a";
}

ordered_json to_json(const Machine& m) {
  ordered_json gpus = ordered_json::array();
  for (const GpuFacts& g : m.gpus) {
    gpus.push_back({
        {"index", g.index},
        {"name", g.name},
        {"pci_bus_id", g.pci_bus_id},
        {"uuid", g.uuid},
        {"memory_bytes", g.memory_bytes},
        {"multiprocessors", g.multiprocessors},
        {"compute_capability", g.compute_capability},
        {"memory_bandwidth_GBps", to_GBps(g.memory_bandwidth_Bps)},
        {"pcie",
         {{"generation", g.pcie.generation},
          {"width", g.pcie.width},
          {"max_generation", g.pcie.max_generation},
          {"max_width", g.pcie.max_width},
          {"source", g.pcie.source}}},
        {"nvlinks", g.nvlinks},
        {"persistence_mode", g.persistence_mode ? ordered_json(*g.persistence_mode) : ordered_json(nullptr)},
        {"mig_mode", g.mig_mode ? ordered_json(*g.mig_mode) : ordered_json(nullptr)},
        {"compute_mode", g.compute_mode ? ordered_json(compute_mode_name(*g.compute_mode)) : ordered_json(nullptr)},
        {"clock_event_reasons", g.clock_events ? ordered_json(*g.clock_events) : ordered_json(nullptr)},
        {"pcie_traffic_GBps",
         g.pcie_traffic ? ordered_json{{"rx", to_GBps(g.pcie_traffic->rx_Bps)}, {"tx", to_GBps(g.pcie_traffic->tx_Bps)}}
                        : ordered_json(nullptr)},
    });
  }
  ordered_json peers = ordered_json::array();
  for (const PeerFacts& p : m.peers) {
    peers.push_back({{"from", p.from},
                     {"to", p.to},
                     {"direct_access", p.direct_access},
                     {"nvlinks", p.nvlinks},
                     {"nvlink_version", p.nvlink_version},
                     {"nvlink_source", p.nvlink_source}});
  }
  return {
      {"host",
       {{"hostname", m.host.hostname},
        {"cpu", m.host.cpu},
        {"logical_cores", m.host.logical_cores},
        {"memory_bytes", m.host.memory_bytes},
        {"os", m.host.os}}},
      {"backend", m.backend},
      {"timings", m.gpu_timings ? "gpu" : "emulated: CPU timings, not GPU timings"},
      {"driver_version", m.driver_version},
      {"runtime_version", m.runtime_version},
      {"gpus", gpus},
      {"peers", peers},
  };
}

ordered_json to_json(const Row& row) {
  const Stats s = row.stats();
  ordered_json out = {
      {"section", row.section},
      {"params", to_json(row.params)},
      {"metric", to_string(row.metric)},
      {"unit", unit_of(row.metric)},
      {"value", shown(row.metric, row.value())},
      {"model", row.model ? ordered_json(shown(row.metric, *row.model)) : ordered_json(nullptr)},
      {"model_basis", row.model_basis},
      {"efficiency", row.efficiency() ? ordered_json(*row.efficiency()) : ordered_json(nullptr)},
      {"check", to_string(row.check)},
      {"bytes_per_sample", row.bytes_per_sample},
      {"samples", row.sample_count()},
      {"samples_s", row.seconds},
  };
  if (row.has_samples())
    out["stats_s"] = {{"min", s.min}, {"median", s.median}, {"mean", s.mean}, {"p99", s.p99}, {"max", s.max}};
  if (row.headline == Headline::best) out["headline"] = "best";
  if (row.derived) out["derived"] = true;
  if (!row.note.empty()) out["note"] = row.note;
  return out;
}

}  // namespace

std::string results_to_json(const Results& results) {
  ordered_json workloads = ordered_json::array();
  for (const WorkloadResult& w : results.workloads) {
    ordered_json rows = ordered_json::array();
    for (const Row& row : w.rows) rows.push_back(to_json(row));
    ordered_json sections = ordered_json::array();
    for (const Section& s : w.sections) {
      sections.push_back({{"id", s.id}, {"title", s.title}});
      if (!s.in_table) sections.back()["in_table"] = false;
    }
    workloads.push_back({
        {"name", w.workload},
        {"verification", w.passed() ? "PASSED" : "FAILED"},
        {"config", to_json(w.config)},
        {"sections", sections},
        {"rows", rows},
        {"rows_checksum", json_checksum(rows)},
        {"skipped", w.skipped},
        {"notes", w.notes},
    });
    if (!w.findings.empty()) {
      ordered_json findings = ordered_json::array();
      for (const Params& f : w.findings) findings.push_back(to_json(f));
      workloads.back()["findings"] = findings;
    }
  }
  ordered_json doc = {
      {"schema", Results::schema},
      {"ferry_version", results.ferry_version},
      {"created_utc", results.created_utc},
      {"command_line", results.command_line},
      {"verification", results.passed() ? "PASSED" : "FAILED"},
      {"machine", to_json(results.machine)},
      {"workloads", workloads},
  };
  if (!results.source_commit.empty()) doc["source_commit"] = results.source_commit;
  if (const auto& ended = results.incomplete)
    doc["incomplete"] = {{"reason", ended->reason},
                         {"rows_done", ended->rows_done},
                         {"steps_done", ended->steps_done},
                         {"steps_planned", ended->steps_planned}};
  return doc.dump(1) + "\n";
}

namespace {

std::string csv_field(std::string text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string param_text(const ParamValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) return x;
        else return fmt::format("{}", x);
      },
      v);
}

}  // namespace

std::string results_to_csv(const Results& results) {
  // One column set for every row: the union of parameter keys, in first-seen order.
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& w : results.workloads)
    for (const auto& row : w.rows)
      for (const auto& [key, value] : row.params)
        if (seen.insert(key).second) keys.push_back(key);

  std::string out = "workload,section";
  for (const auto& k : keys) {
    out += ',';
    out += csv_field(k);
  }
  out += ",metric,unit,value,model,efficiency,check,samples,min_s,median_s,mean_s,p99_s,max_s\n";
  for (const auto& w : results.workloads) {
    for (const auto& row : w.rows) {
      out += csv_field(w.workload);
      out += ',';
      out += csv_field(row.section);
      for (const auto& k : keys) {
        const auto it = std::find_if(row.params.begin(), row.params.end(), [&](const auto& p) { return p.first == k; });
        out += ',';
        if (it != row.params.end()) out += csv_field(param_text(it->second));
      }
      const Stats s = row.stats();
      out += fmt::format(",{},{},{:.6g},{},{},{},{}", to_string(row.metric), unit_of(row.metric),
                         shown(row.metric, row.value()),
                         row.model ? fmt::format("{:.6g}", shown(row.metric, *row.model)) : "",
                         row.efficiency() ? fmt::format("{:.4f}", *row.efficiency()) : "", to_string(row.check),
                         row.sample_count());
      out += row.has_samples()
                 ? fmt::format(",{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", s.min, s.median, s.mean, s.p99, s.max)
                 : std::string(",,,,,\n");
    }
  }
  return out;
}

}  // namespace ferry
