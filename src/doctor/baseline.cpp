#include "doctor/baseline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "doctor/facts.hpp"

namespace ferry::doctor {
namespace {

// The earlier run's GPUs and figures, refused with the reason where it cannot serve as a baseline.
struct EarlierRun {
  std::string created_utc;
  std::string backend;
  Machine machine;  // its GPUs' indices and UUIDs
  std::vector<Finding> figures;
};

UsageError refused(const std::string& path, const std::string& why) {
  return UsageError(fmt::format("--baseline '{}' {}", path, why));
}

EarlierRun earlier_run(const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw refused(path, fmt::format("is not JSON ({})", e.what()));
  }
  if (!doc.is_object() || doc.value("schema", "") != "ferry.results/1")
    throw refused(path, "is not a ferry results file: a baseline is the file of `ferry doctor --json` or "
                        "--save-baseline");
  if (doc.contains("incomplete")) throw refused(path, "is an incomplete run: a baseline is a whole doctor run");
  const nlohmann::json* doctor = nullptr;
  if (doc.contains("workloads") && doc["workloads"].is_array())
    for (const nlohmann::json& w : doc["workloads"])
      if (w.is_object() && w.value("name", "") == "doctor" && w.contains("findings")) doctor = &w;
  if (!doctor)
    throw refused(path, "holds no doctor findings: a baseline is the file of `ferry doctor --json` or --save-baseline");
  EarlierRun run;
  try {
    const nlohmann::json& machine = doc.at("machine");
    run.backend = machine.at("backend").get<std::string>();
    run.created_utc = doc.value("created_utc", "an unknown date");
    for (const nlohmann::json& g : machine.at("gpus")) {
      GpuFacts gpu;
      gpu.index = g.at("index").get<int>();
      gpu.uuid = g.value("uuid", "");
      run.machine.gpus.push_back(std::move(gpu));
    }
    std::vector<std::string> failed;
    for (const nlohmann::json& f : doctor->at("findings")) {
      const std::string check = f.at("check").get<std::string>(), subject = f.at("subject").get<std::string>();
      if (f.at("verdict").get<std::string>() == "FAIL") failed.push_back(check + " (" + subject + ")");
      if (f.contains("value") && f.at("value").is_number())
        run.figures.push_back({.check = check, .subject = subject, .value = f.at("value").get<double>()});
    }
    if (!failed.empty())
      throw refused(path, fmt::format("has FAIL findings ({}): a baseline is a run with none",
                                      join(failed, ", ", [](const std::string& s) { return s; })));
  } catch (const nlohmann::json::exception& e) {
    throw refused(path, fmt::format("is not a whole doctor results file ({})", e.what()));
  }
  return run;
}

// The figure's change as the share of its baseline it performs at: 0.88 for a rate 12% lower, 0.5 for a time
// twice as long. Above 1 when it got better.
double performance(double now, double then, Worse worse) { return worse == Worse::lower ? now / then : then / now; }

std::string figure_text(double value, Unit unit) {
  return unit == Unit::seconds ? fmt::format("{:.2f} us", to_us(value)) : rate_text(value);
}

}  // namespace

std::string subject_by_uuid(const std::string& subject, const Machine& machine) {
  const std::optional<SubjectGpus> named = subject_gpus(subject);
  if (!named) return subject;
  const auto uuid = [&](int index) -> std::string {
    const GpuFacts* g = gpu_facts(machine, index);
    return g ? g->uuid : "";
  };
  const std::string first = uuid(named->gpu);
  if (first.empty()) return "";
  if (!named->peer) return "GPU " + first;
  const std::string second = uuid(*named->peer);
  return second.empty() ? "" : fmt::format("GPU {} {} {}", first, named->between, second);
}

Baseline read_baseline(const std::string& path, const Machine& machine, const std::vector<int>& devices) {
  EarlierRun run = earlier_run(path);
  if (run.backend != machine.backend)
    throw refused(path, fmt::format("comes from the {} backend and this run is on the {}: a baseline compares a "
                                    "node with its own earlier run",
                                    run.backend, machine.backend));
  if (std::all_of(run.machine.gpus.begin(), run.machine.gpus.end(), [](const GpuFacts& g) { return g.uuid.empty(); }))
    throw refused(path, "names no GPU by UUID (a file of a ferry before it recorded them): make a baseline with "
                        "--save-baseline");
  for (int d : devices) {
    const GpuFacts* g = gpu_facts(machine, d);
    if (!g || g->uuid.empty())
      throw UsageError(fmt::format("--baseline: GPU {} has no UUID to find it by in '{}'", d, path));
    const auto same = [&](const GpuFacts& e) { return e.uuid == g->uuid; };
    if (std::none_of(run.machine.gpus.begin(), run.machine.gpus.end(), same))
      throw refused(path,
                    fmt::format("is from other GPUs: this run's GPU {} ({}) is not among its {}: a baseline "
                                "compares a node with its own earlier run (make one here with "
                                "--save-baseline)",
                                d, g->uuid, join(run.machine.gpus, ", ", [](const GpuFacts& e) { return e.uuid; })));
  }
  Baseline baseline{.path = path, .created_utc = run.created_utc, .figures = {}};
  for (const Finding& f : run.figures)
    if (std::string subject = subject_by_uuid(f.subject, run.machine); !subject.empty())
      baseline.figures.push_back({.check = f.check, .subject = std::move(subject), .value = *f.value});
  return baseline;
}

std::vector<Finding> compare_with_baseline(const std::vector<Finding>& findings, const Machine& machine,
                                           const Baseline& baseline, double margin) {
  std::map<std::pair<std::string, std::string>, double> earlier;
  for (const BaselineFigure& b : baseline.figures) earlier.emplace(std::pair{b.check, b.subject}, b.value);
  std::vector<Finding> out;
  int compared = 0, without = 0;
  const std::string basis =
      fmt::format("this node's run of {} ({}), its GPUs matched by UUID", baseline.created_utc, baseline.path);
  for (const Finding& f : findings) {
    if (!f.value || f.worse == Worse::not_compared) continue;
    const auto then = earlier.find({f.check, subject_by_uuid(f.subject, machine)});
    if (then == earlier.end() || !(then->second > 0) || !(*f.value > 0)) {
      ++without;
      continue;
    }
    ++compared;
    const double now = *f.value, was = then->second;
    const double share = performance(now, was, f.worse);
    if (share >= 1 - margin) continue;
    Finding w{.check = f.check + " vs baseline",
              .subject = f.subject,
              .verdict = Verdict::warn,
              .measured = figure_text(now, f.unit),
              .basis = basis,
              .value = now,
              .model = was,
              .unit = f.unit};
    w.expected = f.worse == Worse::lower ? fmt::format(">= {:g}% of {}", 100 * (1 - margin), figure_text(was, f.unit))
                                         : fmt::format("<= {} / {:g}%", figure_text(was, f.unit), 100 * (1 - margin));
    w.cause = fmt::format("{} on {} {} since {}: {} then, {} now ({:.0f}% of its own earlier pace). Something on "
                          "this node changed since: a driver or firmware, a BIOS setting, a cable or riser, or "
                          "another process on the GPU",
                          f.check, f.subject, f.worse == Worse::lower ? "fell" : "slowed", baseline.created_utc,
                          figure_text(was, f.unit), figure_text(now, f.unit), 100 * share);
    w.action = "see this GPU's other rows for the cause; when the change is meant (a new driver), save a new "
               "baseline with --save-baseline";
    out.push_back(std::move(w));
  }
  const int worse = static_cast<int>(out.size());
  Finding sum{.check = "baseline",
              .subject = "host",
              .verdict = worse == 0 ? Verdict::ok : Verdict::warn,
              .measured = fmt::format("{} of {} figures worse", worse, compared),
              .expected = fmt::format("none more than {:g}% worse than its baseline", 100 * margin),
              .basis = basis + (without > 0 ? fmt::format("; {} of this run's figures have none there", without) : "")};
  if (worse > 0) {
    sum.cause = fmt::format("{} figures are more than {:g}% worse than this node's run of {}: the rows "
                            "'... vs baseline' say which",
                            worse, 100 * margin, baseline.created_utc);
    sum.action = "see those rows";
  }
  out.push_back(std::move(sum));
  return out;
}

}  // namespace ferry::doctor
