#pragma once
// Options every `ferry run WORKLOAD` takes, and what they turn into.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/results.hpp"
#include "transport/world.hpp"

namespace ferry {

struct RunOptions {
  std::string backend = "auto";
  std::string device;   // one device, "0" when neither option is given
  std::string devices;  // "0,1,2"
  bool quick = false;
  bool quiet = false;
  bool dry_run = false;
  std::string json_path;
  std::string csv_path;
};

// --dry-run; --json and --csv, each refused at once (before any measuring) when it cannot be written.
void add_run_options(CLI::App& command, RunOptions& options);

// The check of an output option (`option` names it in messages): the path
// can be written (core/output_file.hpp's why_not_writable), and `-` takes
// standard output, which one option at a time may have.
CLI::Validator writable_file(const std::string& option);

// Writes the `what` (e.g. "results") to `path` by core/output_file.hpp's
// rules and says where on `out`. Returns "" when written; else a file that
// could not be written goes to the temporary folder, and the message returned
// names the path, the cause and where the file went.
std::string save_output(const std::string& path, const std::string& content, const std::string& what,
                        std::ostream& out);

// The devices the options name: --devices, else --device, else 0.
std::vector<int> selected_devices(const RunOptions& options);

// The devices of a run whose participants are devices (beff, topo). In one
// process every device is one (all of them by default). Under mpirun each
// rank takes one: --devices lists them per local rank, and without it local
// rank k takes device k.
std::vector<int> participant_devices(const Backend& backend, const RunOptions& options, const World& world);

// A run's results before any workload: version, time, command line and the
// machine, whose banner goes to `out` at once.
Results start_results(Backend& backend, const std::vector<std::string>& command_line, std::ostream& out);

// Prints the tables to `out`, writes --json and --csv, and returns the exit
// code for the results. A file that cannot be written now goes to the
// temporary folder, and RuntimeFailure names where.
int finish_run(Results& results, const RunOptions& options, std::ostream& out);

// finish_run() for a run whose ranks each measured part of `result`: rank 0
// speaks for every rank (one table, one file), and every rank returns rank
// 0's exit code.
int finish_on_rank_zero(World& world, Results& results, WorkloadResult result, const RunOptions& options,
                        std::ostream& out);

}  // namespace ferry
