#include "doctor/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/table.hpp"

namespace ferry::doctor {

WorkloadResult findings_result(const std::vector<Finding>& findings) {
  WorkloadResult result;
  result.workload = "doctor";
  for (const Finding& f : findings) {
    Params record = {
        {"check", f.check},       {"subject", f.subject},   {"verdict", std::string(verdict_name(f.verdict))},
        {"measured", f.measured}, {"expected", f.expected}, {"basis", f.basis},
        {"cause", f.cause},       {"action", f.action}};
    if ((f.value || f.model) && f.unit == Unit::none)
      throw std::logic_error(fmt::format("doctor's {} ({}) has a figure without a unit", f.check, f.subject));
    if (f.value) record.emplace_back("value", *f.value);
    if (f.model) record.emplace_back("model", *f.model);
    if (f.value || f.model) record.emplace_back("unit", std::string(unit_name(f.unit)));
    result.findings.push_back(std::move(record));
  }
  return result;
}

namespace {

// "5 OK, 0 WARN, 0 FAIL, 22 not judged"
std::string verdict_counts(const std::vector<Finding>& findings) {
  const auto count = [&](Verdict v) {
    return std::count_if(findings.begin(), findings.end(), [v](const Finding& f) { return f.verdict == v; });
  };
  return fmt::format("{} OK, {} WARN, {} FAIL, {} not judged", count(Verdict::ok), count(Verdict::warn),
                     count(Verdict::fail), count(Verdict::not_judged));
}

// A reason is one line: a cell's own line breaks become spaces.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

}  // namespace

std::string render_findings(const std::vector<Finding>& findings) {
  TextTable table({"verdict", "check", "subject", "measured", "expected", "basis"});
  for (const Finding& f : findings)
    table.add({std::string(verdict_name(f.verdict)), f.check, f.subject, f.measured, f.expected, f.basis});
  std::string text = "\nferry doctor\n" + table.render();
  for (const Finding& f : findings)
    if (f.verdict == Verdict::warn || f.verdict == Verdict::fail)
      text +=
          fmt::format("\n{} {} ({}): {}\n  do: {}\n", verdict_name(f.verdict), f.check, f.subject, f.cause, f.action);
  return text + "\n" + verdict_counts(findings) + "\n";
}

std::string verdict_line(const std::vector<Finding>& findings) {
  const auto first = [&](Verdict v) {
    return std::find_if(findings.begin(), findings.end(), [v](const Finding& f) { return f.verdict == v; });
  };
  auto named = first(Verdict::fail);
  if (named == findings.end()) named = first(Verdict::warn);
  if (named == findings.end()) return fmt::format("ferry doctor: OK ({})", verdict_counts(findings));
  std::string line =
      fmt::format("ferry doctor: {} {} ({})", verdict_name(named->verdict), named->check, named->subject);
  if (!named->measured.empty()) line += ": " + named->measured;
  if (!named->expected.empty()) line += (named->measured.empty() ? ": expected " : ", expected ") + named->expected;
  return one_line(line) + fmt::format(" ({})", verdict_counts(findings));
}

}  // namespace ferry::doctor
