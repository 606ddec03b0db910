#pragma once
// What `ferry doctor` under mpirun (fleet mode) gathers on rank 0, as the
// fleet's judgments take it: every rank's figures and findings from its own
// pass, and the timings of each pair of neighbouring ranks.
// doctor/measure/fleet.cpp fills it.
#include <cstdint>
#include <string>
#include <vector>

#include "doctor/finding.hpp"

namespace ferry::doctor {

// One rank's GPU: its figures from its own pass, and its own findings.
struct RankReport {
  int rank = 0;
  std::string host{};
  int device = 0;
  std::string gpu{};  // the model's name, as CUDA gives it
  double h2d_Bps = 0, d2h_Bps = 0, both_ways_Bps = 0, device_copy_Bps = 0;
  std::vector<Finding> findings{};
};

// One pair of neighbouring ranks, measured alone.
struct PairTiming {
  int from = 0;  // ranks
  int to = 0;
  std::string from_host{}, to_host{};
  std::vector<double> seconds{};  // one per repetition, the warm-up left out
  bool intact = false;            // every byte arrived in the receiver's device memory
};

struct FleetInputs {
  std::vector<RankReport> ranks;  // in rank order
  std::vector<PairTiming> pairs;  // neighbours in rank order, one pair at a time, through pinned host memory and MPI
  std::uint64_t pair_bytes = 0;   // each pair's message
  bool gpu_timings = true;        // false on the emulator
  // The same pairs through NCCL (device time of nccl_messages messages of
  // pair_bytes each), or why NCCL did not run.
  std::vector<PairTiming> nccl_pairs{};
  int nccl_messages = 0;
  std::string nccl_skipped{};
};

std::string rank_name(const RankReport& r);  // "node7 GPU 2 (rank 10)"

}  // namespace ferry::doctor
