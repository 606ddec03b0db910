#pragma once
// The options every `ferry run WORKLOAD` takes (run/run_options.hpp), as a
// command declares them.
#include <CLI/CLI.hpp>
#include <string>

#include "run/run_options.hpp"

namespace ferry {

// --backend, --device, --devices, --quick, --quiet, --dry-run; --json and
// --csv, each refused at once (before any measuring) when it cannot be written.
void add_run_options(CLI::App& command, RunOptions& options);

// --allow-shared-gpu, of the workloads that run a rank per GPU under mpirun (beff, topo).
void add_shared_gpu_option(CLI::App& command, RunOptions& options);

// --profile of a workload whose model reads link's ceilings (run/model_profile.hpp).
void add_ceilings_profile_option(CLI::App& command, std::string& path);

// The check of an output option (`option` names it in messages): the path
// can be written (core/output_file.hpp's why_not_writable), and `-` takes
// standard output, which one option at a time may have.
CLI::Validator writable_file(const std::string& option);

}  // namespace ferry
