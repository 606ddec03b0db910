#include "cli/run_options.hpp"

#include <fmt/format.h>

#include "cli/command_files.hpp"
#include "core/output_file.hpp"
#include "run/standard_output.hpp"
#include "transport/world.hpp"

namespace ferry {

void add_run_options(CLI::App& command, RunOptions& options) {
  command
      .add_option("--backend", options.backend, "cuda, emu, or auto: cuda when a GPU answers, else the CPU emulator")
      ->default_val("auto");
  command.add_option("--device", options.device, "the GPU to measure (default 0)");
  command.add_option("--devices", options.devices, "several GPUs, e.g. 0,1,2,3 (peer figures need two or more)");
  command.add_flag("--quick", options.quick, "a fast pass: fewer sizes and repetitions");
  command.add_flag("-q,--quiet", options.quiet, "no progress lines on standard error");
  command.add_flag("--dry-run", options.dry_run,
                   "list the steps the run would take, each with a time estimate, and stop: nothing is measured or "
                   "written (estimates from --profile's rates where a workload takes one, else nominal ones)");
  command
      .add_option("--json", options.outputs.json_path,
                  "write every sample and figure to this results file (JSON); - for standard output, and the "
                  "tables then go to standard error")
      ->check(writable_file("--json"));
  command
      .add_option("--csv", options.outputs.csv_path,
                  "write one line per row to this file (CSV); - for standard output, and the tables then go to "
                  "standard error")
      ->check(writable_file("--csv"));
}

void add_shared_gpu_option(CLI::App& command, RunOptions& options) {
  command.add_flag("--allow-shared-gpu", options.allow_shared_gpu,
                   "under mpirun, run even where ranks share a GPU (more ranks on a host than it has GPUs, or "
                   "--devices naming one twice); refused without it, since each then measures about half of what "
                   "it would alone. The ranks are named in every table's notes");
}

void add_ceilings_profile_option(CLI::App& command, std::string& path) {
  command
      .add_option("--profile", path,
                  "machine profile from `ferry probe -o` for the model (default: measure it with link in this run)")
      ->check(input_file("--profile"));
}

CLI::Validator writable_file(const std::string& option) {
  return CLI::Validator(
      [option](std::string& path) {
        if (std::string why = why_empty(option, path, "a file, or - for standard output"); !why.empty()) return why;
        name_file(option, path, true);
        if (path == "-") return take_standard_output(option);  // on every rank: each prints its tables elsewhere
        if (launcher_rank() != 0) return std::string();        // only rank 0 writes; the path may be on its host alone
        const std::string why = why_not_writable(path);
        return why.empty() ? std::string() : fmt::format("cannot write '{}': {}", path, why);
      },
      "FILE or -");
}

}  // namespace ferry
