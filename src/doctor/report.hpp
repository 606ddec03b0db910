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

}  // namespace ferry::doctor
