#pragma once
// Options every `ferry run WORKLOAD` takes, and what they turn into.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/results.hpp"

namespace ferry {

struct RunOptions {
  std::string backend = "auto";
  std::string device;   // one device, "0" when neither option is given
  std::string devices;  // "0,1,2"
  bool quick = false;
  bool quiet = false;
  std::string json_path;
  std::string csv_path;
};

void add_run_options(CLI::App& command, RunOptions& options);

// The devices the options name: --devices, else --device, else 0.
std::vector<int> selected_devices(const RunOptions& options);

// Fills the run's machine, command line and version, prints the tables to
// `out`, writes --json and --csv, and returns the exit code for the results.
int finish_run(Results& results, const RunOptions& options, std::ostream& out);

}  // namespace ferry
