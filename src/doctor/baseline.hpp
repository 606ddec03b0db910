#pragma once
// `ferry doctor --baseline FILE`: each figure of this run against the same
// node's earlier doctor run, its GPUs matched by UUID, so that "this node's
// d2h fell 12% since last week" is a WARN rather than a spreadsheet.
#include <string>
#include <vector>

#include "core/machine.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// A figure of the earlier run, its subject with each GPU named by UUID ("GPU GPU-2f1c... -> GPU-77ab...").
struct BaselineFigure {
  std::string check;
  std::string subject;
  double value = 0;
};

struct Baseline {
  std::string path;
  std::string created_utc;  // when the earlier run began, as its file says
  std::vector<BaselineFigure> figures;
};

// Reads FILE, the results of an earlier `ferry doctor --json` or --save-baseline on this node. UsageError, naming
// the reason, when it is not JSON or not a doctor results file, is incomplete, has a FAIL finding, or comes from
// other hardware: another backend, or a GPU among `devices` of `machine` that it does not hold (by UUID).
Baseline read_baseline(const std::string& path, const Machine& machine, const std::vector<int>& devices);

// The findings a comparison adds: one WARN per figure worse than its baseline by more than `margin` (a share of
// it: 0.1 is 10%), in the direction the figure's `worse` says, then one `baseline` finding that sums them (OK when
// none is worse). Figures without a baseline figure, or whose `worse` is not_compared, are counted, not judged.
std::vector<Finding> compare_with_baseline(const std::vector<Finding>& findings, const Machine& machine,
                                           const Baseline& baseline, double margin);

// A subject with each GPU index replaced by the GPU's UUID in `machine` ("GPU 0 -> 1" to
// "GPU GPU-2f1c... -> GPU-77ab..."); the subject as it is when it names no GPU ("host"), "" when it names a GPU
// the machine has no UUID for.
std::string subject_by_uuid(const std::string& subject, const Machine& machine);

}  // namespace ferry::doctor
