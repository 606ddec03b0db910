#pragma once
// `ferry doctor`'s judgments of one pass: the machine's facts and link's
// figures in, one finding per check and subject out, each with what it was held
// against and, when it is not OK, the likely cause and what to do. Nothing here
// measures or reads the machine: doctor/measure/pass.cpp gathers the inputs.
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// Verification, links, placement, GPU state and environment; then, on a GPU's
// timings, its rates, its pairs' and its latencies.
std::vector<Finding> diagnose(const Inputs& inputs);

}  // namespace ferry::doctor
