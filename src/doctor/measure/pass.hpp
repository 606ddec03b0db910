#pragma once
// `ferry doctor`'s pass: link's fastest checks on each selected GPU and pair,
// the facts read beside them (doctor/measure/read_facts.hpp) and NCCL against
// the copy engines on each pair (doctor/measure/nccl.hpp); then the judgments
// of doctor/judge/.
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "bench/link/link.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "doctor/finding.hpp"
#include "model/profile.hpp"

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

}  // namespace ferry::doctor
