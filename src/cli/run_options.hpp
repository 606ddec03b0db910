#pragma once
// Options every `ferry run WORKLOAD` takes, and what they turn into. What is
// done with them (start, finish, write files) is run/run_results.hpp's.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "run/run_results.hpp"
#include "transport/world.hpp"

namespace ferry {

struct RunOptions {
  std::string backend = "auto";
  std::string device;   // one device, "0" when neither option is given
  std::string devices;  // "0,1,2"
  bool quick = false;
  bool quiet = false;
  bool dry_run = false;
  OutputPaths outputs;  // --json, --csv
};

// --dry-run; --json and --csv, each refused at once (before any measuring) when it cannot be written.
void add_run_options(CLI::App& command, RunOptions& options);

// The check of an output option (`option` names it in messages): the path
// can be written (core/output_file.hpp's why_not_writable), and `-` takes
// standard output, which one option at a time may have.
CLI::Validator writable_file(const std::string& option);

// The devices the options name: --devices, else --device, else 0.
std::vector<int> selected_devices(const RunOptions& options);

// The devices of a run whose participants are devices (beff, topo). In one
// process every device is one (all of them by default). Under mpirun each
// rank takes one: --devices lists them per local rank, and without it local
// rank k takes device k.
std::vector<int> participant_devices(const Backend& backend, const RunOptions& options, const World& world);

}  // namespace ferry
