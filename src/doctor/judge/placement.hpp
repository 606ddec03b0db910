#pragma once
// doctor's judgments of where the process runs against where each GPU sits:
// the NUMA nodes of its CPUs, the CPUs NVML counts nearest the GPU, and the
// node its pinned buffers land on.
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// "numa placement", then "cpu affinity", then "pinned memory node", each per GPU.
void judge_placement(const Inputs& in, std::vector<Finding>& out);

}  // namespace ferry::doctor
