#pragma once
// What the doctor judgment tests ask of a list of findings.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "doctor/finding.hpp"

namespace ferry::doctor::test_findings {

// The finding of `check` for `subject`; throws when there is none, so a test names what is missing.
inline Finding find(const std::vector<Finding>& findings, const std::string& check, const std::string& subject) {
  const auto it = std::find_if(findings.begin(), findings.end(),
                               [&](const Finding& f) { return f.check == check && f.subject == subject; });
  if (it == findings.end()) throw std::runtime_error("no finding '" + check + "' for '" + subject + "'");
  return *it;
}

// "check subject" of every WARN and FAIL.
inline std::vector<std::string> not_ok(const std::vector<Finding>& findings) {
  std::vector<std::string> named;
  for (const Finding& f : findings)
    if (f.verdict == Verdict::warn || f.verdict == Verdict::fail) named.push_back(f.check + " " + f.subject);
  return named;
}

}  // namespace ferry::doctor::test_findings
