#pragma once
// doctor's judgments of each GPU's state as NVML gave it: other processes on
// it, its persistence, MIG and compute modes, the reasons it held its clocks
// during the copy, and PCIe traffic that was not doctor's. Each is "not
// judged" where NVML does not say (the emulator, a build or machine without it).
#include <cstdint>
#include <string>
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// One finding per check and selected GPU, grouped by check.
void judge_gpu_state(const Inputs& in, std::vector<Finding>& out);

// The reasons among `clock_events` that slow a GPU below its rating, named as
// nvidia-smi does ("HW thermal slowdown, SW power cap"); empty when none.
std::string clock_slowdowns(std::uint64_t events);

}  // namespace ferry::doctor
