#pragma once
// `ferry doctor`'s latency checks: each GPU's launch, graph, flag and small-copy
// latencies from the pass against a healthy GPU of the same model whose run
// ships with ferry (doctor/references.hpp). Pure like doctor/checks.hpp,
// whose diagnose() appends these findings after the rates'.
#include <string_view>
#include <vector>

#include "doctor/checks.hpp"
#include "doctor/references.hpp"
#include "model/profile.hpp"

namespace ferry::doctor {

// One latency doctor judges: where the pass puts it and where a reference holds it.
struct LatencyFigure {
  std::string_view check;  // "launch + sync"
  double model::DeviceProfile::*measured = nullptr;
  double LatencyReference::*reference = nullptr;
  bool crosses_pcie = false;  // a transfer over the link, which PCIe power saving slows
};
const std::vector<LatencyFigure>& latency_figures();

// Per GPU of the pass, each latency against the reference of its model
// (latency_vs_reference, doctor/thresholds.hpp); not
// judged on the emulator, for a model with no reference, or for a figure the
// pass did not measure.
std::vector<Finding> judge_latencies(const Inputs& inputs);

// The test hook FERRY_FAULT_DOCTOR=slow-launch=D (doctor/faults.cpp), on
// any backend: every GPU's latencies become its model's reference (a GPU of a
// model with none, the emulator's included, is taken for the first reference's
// model), and GPU D's launch + sync twice it. Emulator rates are dropped, since
// the pass then counts as a GPU's and they are CPU timings; a GPU's are kept.
void provoke_slow_launch(Inputs& inputs, int device);

}  // namespace ferry::doctor
