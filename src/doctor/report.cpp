#include "doctor/report.hpp"

#include <fmt/format.h>

#include <algorithm>

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
    if (f.value) record.emplace_back("value", *f.value);  // B/s, or seconds for the pass time
    if (f.model) record.emplace_back("model", *f.model);
    result.findings.push_back(std::move(record));
  }
  return result;
}

std::string render_findings(const std::vector<Finding>& findings) {
  TextTable table({"verdict", "check", "subject", "measured", "expected", "basis"});
  for (const Finding& f : findings)
    table.add({std::string(verdict_name(f.verdict)), f.check, f.subject, f.measured, f.expected, f.basis});
  std::string text = "\nferry doctor\n" + table.render();
  for (const Finding& f : findings)
    if (f.verdict == Verdict::warn || f.verdict == Verdict::fail)
      text +=
          fmt::format("\n{} {} ({}): {}\n  do: {}\n", verdict_name(f.verdict), f.check, f.subject, f.cause, f.action);
  const auto count = [&](Verdict v) {
    return std::count_if(findings.begin(), findings.end(), [v](const Finding& f) { return f.verdict == v; });
  };
  text += fmt::format("\n{} OK, {} WARN, {} FAIL, {} not judged\n", count(Verdict::ok), count(Verdict::warn),
                      count(Verdict::fail), count(Verdict::not_judged));
  return text;
}

}  // namespace ferry::doctor
