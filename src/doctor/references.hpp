#pragma once
// The latencies `ferry doctor` holds a GPU's against: figures of healthy
// machines whose whole runs ship with ferry in docs/results, one entry per GPU
// model, each naming the run it came from. tests/doctor/latency_test.cpp
// reads those runs and holds every figure here to them, so a run that replaces
// the evidence without updating this table fails the suite.
#include <string_view>
#include <vector>

namespace ferry::doctor {

struct LatencyReference {
  std::string_view gpu;         // the model's name as CUDA reports it: "NVIDIA H100 80GB HBM3"
  std::string_view short_name;  // "H100", for causes
  std::string_view source;      // the run's table: "docs/results/link-h100.txt"
  std::string_view machine;     // what ran it, for the basis
  // Medians of link's rows, in seconds. Where the run had several GPUs of the
  // model, the slower GPU's: a healthy GPU of this model reached it.
  double launch_and_sync_s = 0;    // dispatch: launch + sync, one kernel
  double launch_per_kernel_s = 0;  // dispatch: stream launch, per kernel
  double graph_per_kernel_s = 0;   // dispatch: graph replay, per kernel
  double flag_round_trip_s = 0;    // flag: doorbell -> echo seen by the host
  double copy_latency_h2d_s = 0;   // copy_latency: host clock (copy + sync), 4 B
  double copy_latency_d2h_s = 0;
};

const std::vector<LatencyReference>& latency_references();
// The reference for a GPU of this model; nullptr when none ships with ferry.
const LatencyReference* latency_reference(std::string_view gpu);

}  // namespace ferry::doctor
