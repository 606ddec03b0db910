#pragma once
// doctor's judgment of the variables that change how data moves (NCCL's,
// CUDA_DEVICE_MAX_CONNECTIONS, a reordered CUDA_VISIBLE_DEVICES): each one set
// is a WARN naming what it changes.
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

void judge_environment(const Inputs& in, std::vector<Finding>& out);

}  // namespace ferry::doctor
