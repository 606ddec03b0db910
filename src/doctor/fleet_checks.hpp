#pragma once
// `ferry doctor` under mpirun (fleet mode): every rank's local pass and the
// pairs of neighbouring ranks in, the fleet's judgments and its table out.
// Pure, as doctor/checks.hpp: doctor/fleet.cpp gathers the inputs.
#include <cstdint>
#include <string>
#include <vector>

#include "doctor/checks.hpp"
#include "transport/staged_pairs.hpp"

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

struct FleetInputs {
  std::vector<RankReport> ranks;           // in rank order
  std::vector<transport::PairTime> pairs;  // neighbours in rank order, one pair at a time
  std::uint64_t pair_bytes = 0;            // each pair's message
  bool gpu_timings = true;                 // false on the emulator
  // The same pairs through NCCL (device time of nccl_messages messages of
  // pair_bytes each), or why NCCL did not run.
  std::vector<transport::PairTime> nccl_pairs{};
  int nccl_messages = 0;
  std::string nccl_skipped{};
};

// The figures against the fleet (per figure and GPU model: the lowest rank,
// or each rank below its share), the pairs' verification, and the slowest
// pair within a host and between hosts.
std::vector<Finding> judge_fleet(const FleetInputs& in);

// A row per host and GPU (rank, model, figures, its own verdicts), then the
// fleet's findings with every rank's findings that are not OK, each under the
// name "host GPU d (rank r)", with causes below: what rank 0 prints.
std::string render_fleet(const FleetInputs& in, const std::vector<Finding>& fleet);

// Every finding of the run for the results: the fleet's, then each rank's with
// its subject prefixed by where it ran.
std::vector<Finding> all_findings(const FleetInputs& in, const std::vector<Finding>& fleet);

std::string rank_name(const RankReport& r);  // "node7 GPU 2 (rank 10)"

}  // namespace ferry::doctor
