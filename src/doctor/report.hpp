#pragma once
// What `ferry doctor` prints and writes of its findings.
#include <string>
#include <vector>

#include "core/results.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// The findings as the results' `doctor` workload: every check in the JSON, under "findings".
WorkloadResult findings_result(const std::vector<Finding>& findings);

// The verdict table, then each finding that is not OK with its cause and what to do.
std::string render_findings(const std::vector<Finding>& findings);

// One line a scheduler can keep as a node's reason (--quiet): the first FAIL, else the first WARN, with what was
// measured and expected, and the count of each verdict:
// "ferry doctor: FAIL pcie link (GPU 0): Gen4 x8, expected Gen5 x16 (5 OK, 0 WARN, 2 FAIL, 22 not judged)";
// "ferry doctor: OK (5 OK, 0 WARN, 0 FAIL, 22 not judged)".
std::string verdict_line(const std::vector<Finding>& findings);

}  // namespace ferry::doctor
