#pragma once
// `ferry model beff`: b_eff predicted for rings larger than this machine
// (run/beff_prediction.hpp), from the terms of a beff results file or machine
// profile, else of a quick beff run on this machine. A results file that
// failed verification is refused, or with --allow-failed modelled with every
// printed line marked; one a run left when it ended early is refused, or with
// --allow-incomplete modelled with a note that says so.
#include <ostream>
#include <string>
#include <vector>

namespace ferry {

// The network when none is given: 50 GB/s a direction is one 400 Gb/s NIC per GPU.
constexpr const char* default_network_bandwidth = "50GB/s";
constexpr const char* default_network_latency = "3us";

// The command's options, as given.
struct ModelBeffOptions {
  std::string devices = "8,64,512";
  std::string per_node = "8";
  std::string network_bandwidth = default_network_bandwidth;
  std::string network_latency = default_network_latency;
  std::string profile_path;
  std::string network_path;   // a beff results file of a ring whose every hop crosses hosts
  std::string measured_path;  // a beff results file of a ring to set beside its prediction
  std::string json_path;
  std::string backend = "auto";
  bool quiet = false;
  bool allow_failed = false;
  bool allow_incomplete = false;
};

int model_beff(const ModelBeffOptions& options, const std::vector<std::string>& command_line, std::ostream& out);

}  // namespace ferry
