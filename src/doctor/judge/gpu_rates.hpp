#pragma once
// doctor's judgments of each GPU's rates from the pass: pinned copies each way
// and both ways at once against its PCIe link, pageable against pinned, the
// device copy against its memory, and its pinned copies against the median of
// the selected GPUs of its model. Judged on a GPU's timings only.
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// Per GPU "pinned h2d", "pinned d2h", "pinned both ways", "pageable h2d",
// "pageable d2h", "device copy"; then "pinned vs like GPUs" per GPU.
void judge_gpu_rates(const Inputs& in, std::vector<Finding>& out);

}  // namespace ferry::doctor
