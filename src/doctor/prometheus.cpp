#include "doctor/prometheus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "doctor/facts.hpp"

namespace ferry::doctor {
namespace {

// A label value as the text format quotes it: backslash, double quote and line feed escaped.
std::string quoted(const std::string& value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "\"";
}

std::string sample_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

int verdict_value(Verdict v) {
  switch (v) {
    case Verdict::ok: return 0;
    case Verdict::warn: return 1;
    case Verdict::fail: return 2;
    case Verdict::not_judged: return -1;
  }
  return -1;
}

// The worse of two verdicts, for several findings of one check and subject (the environment's variables).
Verdict worst(Verdict a, Verdict b) { return verdict_value(a) >= verdict_value(b) ? a : b; }

std::string uuid_of(const Machine& machine, int index) {
  const GpuFacts* g = gpu_facts(machine, index);
  return g ? g->uuid : "";
}

// Hostname, check and subject, and the GPUs the subject names.
std::string labels(const Finding& f, const Machine& machine) {
  std::string text =
      fmt::format("Hostname={},check={},subject={}", quoted(machine.host.hostname), quoted(f.check), quoted(f.subject));
  if (const std::optional<SubjectGpus> named = subject_gpus(f.subject)) {
    text += fmt::format(",gpu=\"{}\",UUID={}", named->gpu, quoted(uuid_of(machine, named->gpu)));
    if (named->peer)
      text += fmt::format(",peer_gpu=\"{}\",peer_UUID={}", *named->peer, quoted(uuid_of(machine, *named->peer)));
  }
  return "{" + text + "}";
}

struct Metric {
  const char* name;
  const char* help;
  std::vector<std::string> samples{};
};

void add(std::string& text, const Metric& metric) {
  if (metric.samples.empty()) return;
  text += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", metric.name, metric.help, metric.name);
  for (const std::string& s : metric.samples) text += metric.name + s + "\n";
}

}  // namespace

std::string prometheus_text(const std::vector<Finding>& findings, const Machine& machine, double unix_seconds) {
  // One series per check and subject: where several findings share them, the worst verdict and the first figure.
  std::vector<Finding> series;
  for (const Finding& f : findings) {
    const auto same = std::find_if(series.begin(), series.end(),
                                   [&](const Finding& s) { return s.check == f.check && s.subject == f.subject; });
    if (same == series.end()) series.push_back(f);
    else same->verdict = worst(same->verdict, f.verdict);
  }
  Metric verdict{"ferry_doctor_verdict",
                 "ferry doctor's verdict of a check on a subject: 0 OK, 1 WARN, 2 FAIL, -1 not judged"};
  Metric rate{"ferry_doctor_rate_bytes_per_second", "a rate ferry doctor measured, in bytes per second"};
  Metric rate_reference{"ferry_doctor_rate_reference_bytes_per_second",
                        "what ferry doctor held the rate against (a link's rate, like GPUs' median, a baseline)"};
  Metric time{"ferry_doctor_time_seconds", "a latency or duration ferry doctor measured, in seconds"};
  Metric time_reference{"ferry_doctor_time_reference_seconds",
                        "what ferry doctor held the time against (a GPU model's reference, the budget, a baseline)"};
  for (const Finding& f : series) {
    const std::string l = labels(f, machine);
    verdict.samples.push_back(fmt::format("{} {}", l, verdict_value(f.verdict)));
    Metric* measured = f.unit == Unit::bytes_per_second ? &rate : f.unit == Unit::seconds ? &time : nullptr;
    Metric* reference = f.unit == Unit::bytes_per_second ? &rate_reference
                        : f.unit == Unit::seconds        ? &time_reference
                                                         : nullptr;
    if (measured && f.value) measured->samples.push_back(l + " " + sample_value(*f.value));
    if (reference && f.model) reference->samples.push_back(l + " " + sample_value(*f.model));
  }
  Metric counts{"ferry_doctor_findings", "how many of ferry doctor's findings have each verdict"};
  for (Verdict v : {Verdict::ok, Verdict::warn, Verdict::fail, Verdict::not_judged}) {
    const auto n = std::count_if(findings.begin(), findings.end(), [v](const Finding& f) { return f.verdict == v; });
    counts.samples.push_back(
        fmt::format("{{Hostname={},verdict={}}} {}", quoted(machine.host.hostname),
                    quoted(v == Verdict::not_judged ? std::string("not judged") : std::string(verdict_name(v))), n));
  }
  Metric ended{"ferry_doctor_last_run_timestamp_seconds", "when ferry doctor's run ended, in seconds since 1970"};
  ended.samples.push_back(fmt::format("{{Hostname={}}} {}", quoted(machine.host.hostname), sample_value(unix_seconds)));
  std::string text;
  for (const Metric* m : {&verdict, &rate, &rate_reference, &time, &time_reference, &counts, &ended}) add(text, *m);
  return text;
}

}  // namespace ferry::doctor
