#pragma once
// doctor's judgments of the links the machine's facts give: each GPU's PCIe
// link as it ran under load against the most it can run, its active NVLinks
// against the most among the selected GPUs of its model, and peer access
// between each pair.
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// "pcie link" per GPU, "nvlinks" per GPU, then "peer access" per pair and direction.
void judge_links(const Inputs& in, std::vector<Finding>& out);

}  // namespace ferry::doctor
