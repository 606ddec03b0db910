#pragma once
// doctor's judgments of the peer copies between each pair of selected GPUs:
// against the pair's NVLinks (else its PCIe link), against the median of the
// pairs linked alike, and one direction against the other. Judged on a GPU's
// timings only.
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// Per pair and direction "peer copy" and "peer vs like pairs"; per pair "peer asymmetry".
void judge_peer_rates(const Inputs& in, std::vector<Finding>& out);

}  // namespace ferry::doctor
