#pragma once
// `ferry doctor`'s latency checks: each GPU's launch, graph, flag and small-copy
// latencies from the pass against a healthy GPU of the same model whose run
// ships with ferry (doctor/references.hpp). Pure; diagnose() appends these
// findings after the rates'.
#include <string_view>
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"
#include "doctor/references.hpp"
#include "model/profile.hpp"

namespace ferry::doctor {

// One latency doctor judges: where the pass puts it and where a reference holds it.
struct LatencyFigure {
  std::string_view check;  // "launch + sync"
  double model::DeviceProfile::*measured = nullptr;
  double LatencyReference::*reference = nullptr;
  bool crosses_pcie = false;  // a transfer over the link, which PCIe power saving slows
  // --baseline: only a figure steadier than the margin is held against the node's earlier run (finding.hpp).
  Worse against_baseline = Worse::not_compared;
};
const std::vector<LatencyFigure>& latency_figures();

// Per GPU of the pass, each latency against the reference of its model
// (latency_vs_reference, doctor/thresholds.hpp); not judged on the emulator,
// for a model with no reference, or for a figure the pass did not measure.
std::vector<Finding> judge_latencies(const Inputs& inputs);

}  // namespace ferry::doctor
