#pragma once
// What a run would do, for `ferry run WORKLOAD --dry-run` and for the
// progress line's total: its steps, each with the work it does, priced at a
// pace (a machine profile's rates, or nominal ones) into a time estimate.
#include <string>
#include <vector>

#include "bench/common/measure.hpp"

namespace ferry {

// One sample's work, whatever the machine: the pace turns it into seconds.
struct SampleWork {
  double link_bytes = 0;    // host <-> device by the copy engine (or mapped memory)
  double device_bytes = 0;  // device memory read plus written
  double peer_bytes = 0;    // device -> device between GPUs
  double host_bytes = 0;    // the host fills, poisons, checks or copies
  double waits = 0;         // the host waiting on the device: a launch and its sync, a copy's sync
  double launches = 0;      // kernels and copies queued without a wait between them
  double handoffs = 0;      // flags passed between a persistent kernel and the host or its other roles
  double at_least_s = 0;    // a sample calibrated to last this long (beff's, topo's)
};

struct PlannedStep {
  std::string what = {};  // the progress line's text for the step
  Repeat repeat = {};     // warm-ups and samples, as the step's timing loop takes them
  SampleWork sample = {};
  int trials = 1;               // timing loops of that repeat in the step (one per direction, say)
  double setup_host_bytes = 0;  // once per step: filling inputs, allocating
  double setup_s = 0;           // once per step, whatever the pace: opening a transport
};

// Rates in bytes per second and a wait's seconds, with where they came from.
struct Pace {
  double link_Bps = 0;
  double device_Bps = 0;
  double peer_Bps = 0;
  double host_Bps = 0;
  double wait_s = 0;
  double launch_s = 0;
  double handoff_s = 0;
  std::string basis;
};

// A step at the pace: warm-ups plus the samples its repeat rule would take.
double estimate_seconds(const PlannedStep& step, const Pace& pace);

struct Plan {
  std::vector<PlannedStep> steps;
  std::vector<std::string> skipped;  // what the run would leave out, and why
};

}  // namespace ferry
