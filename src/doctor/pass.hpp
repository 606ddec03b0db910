#pragma once
// `ferry doctor`'s pass: link's fastest checks on each selected GPU and pair,
// the PCIe links read while a copy runs, where the process and the GPUs sit,
// and the variables that change data paths; then doctor/checks.hpp judges.
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/plan.hpp"
#include "bench/link/link.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "doctor/checks.hpp"
#include "doctor/faults.hpp"

namespace ferry::doctor {

// The part of link that doctor runs: pinned and pageable copies at their plateau,
// both ways, the device copy, and peer copies between every pair.
link::LinkConfig pass_config(const Capabilities& capabilities, const std::vector<int>& devices);

struct Pass {
  WorkloadResult link;              // link's rows, as `ferry run link` would write them
  std::vector<Finding> findings;    // one per check and subject
  model::MachineProfile figures{};  // link's figures, as judged
};

// Throws UsageError when `fault` names no condition (the message lists them).
Pass run_pass(Backend& backend, const Machine& machine, const std::vector<int>& devices, std::string_view fault,
              const Progress& progress);

// The findings as the results' `doctor` workload: every check in the JSON, under "findings".
WorkloadResult findings_result(const std::vector<Finding>& findings);

// The verdict table, then each finding that is not OK with its cause and what to do.
std::string render_findings(const std::vector<Finding>& findings);

}  // namespace ferry::doctor
