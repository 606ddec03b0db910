#include "cli/run_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "cli/standard_output.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "core/table.hpp"

namespace ferry {
namespace {

int parse_device(std::string_view text) {
  int value = -1;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty())
    throw UsageError(fmt::format("'{}' is not a device number", text));
  if (value < 0) throw UsageError(fmt::format("device {} does not exist: devices are numbered from 0", value));
  return value;
}

}  // namespace

void add_run_options(CLI::App& command, RunOptions& options) {
  command.add_option("--backend", options.backend, "cuda, emu, or auto: cuda when a GPU answers, else the CPU emulator")
      ->default_val("auto");
  command.add_option("--device", options.device, "the GPU to measure (default 0)");
  command.add_option("--devices", options.devices, "several GPUs, e.g. 0,1,2,3 (peer figures need two or more)");
  command.add_flag("--quick", options.quick, "a fast pass: fewer sizes and repetitions");
  command.add_flag("-q,--quiet", options.quiet, "no progress lines on standard error");
  command.add_flag("--dry-run", options.dry_run,
                   "list the steps the run would take, each with a time estimate, and stop: nothing is measured or "
                   "written (estimates from --profile's rates where a workload takes one, else nominal ones)");
  command.add_option("--json", options.json_path,
                     "write every sample and figure to this results file (JSON); - for standard output, and the "
                     "tables then go to standard error")
      ->check(writable_file("--json"));
  command.add_option("--csv", options.csv_path,
                     "write one line per row to this file (CSV); - for standard output, and the tables then go to "
                     "standard error")
      ->check(writable_file("--csv"));
}

CLI::Validator writable_file(const std::string& option) {
  return CLI::Validator(
      [option](std::string& path) {
        if (path == "-") return take_standard_output(option);  // on every rank: each prints its tables elsewhere
        if (launcher_rank() != 0) return std::string();  // only rank 0 writes; the path may be on its host alone
        const std::string why = why_not_writable(path);
        return why.empty() ? std::string() : fmt::format("cannot write '{}': {}", path, why);
      },
      "FILE or -");
}

std::vector<int> selected_devices(const RunOptions& options) {
  if (!options.device.empty() && !options.devices.empty()) throw UsageError("give --device or --devices, not both");
  if (options.devices.empty()) return {options.device.empty() ? 0 : parse_device(options.device)};
  std::vector<int> devices;
  for (std::string_view item : split(options.devices, ',')) devices.push_back(parse_device(item));
  return devices;
}

std::vector<int> participant_devices(const Backend& backend, const RunOptions& o, const World& w) {
  const bool chosen = !o.device.empty() || !o.devices.empty();
  if (!w.distributed()) {
    if (chosen) return selected_devices(o);
    std::vector<int> all(static_cast<std::size_t>(backend.device_count()));
    for (int d = 0; d < backend.device_count(); ++d) all[d] = d;
    return all;
  }
  if (!o.device.empty()) return selected_devices(o);
  if (!o.devices.empty()) {
    const std::vector<int> listed = selected_devices(o);
    if (w.local_rank() >= static_cast<int>(listed.size()))
      throw UsageError(fmt::format("--devices {} names {} device(s), but this host runs local rank {}: list one "
                                   "device per rank of the host",
                                   o.devices, listed.size(), w.local_rank()));
    return {listed[static_cast<std::size_t>(w.local_rank())]};
  }
  return {w.local_rank() % std::max(1, backend.device_count())};
}

Results start_results(Backend& backend, const std::vector<std::string>& command_line, std::ostream& out) {
  Results results;
  results.ferry_version = FERRY_VERSION;
  results.created_utc = utc_now_iso8601();
  results.command_line = command_line;
  results.machine = backend.describe_machine();
  out << render_banner(results.machine) << std::flush;
  return results;
}

int finish_run(Results& results, const RunOptions& options, std::ostream& out) {
  for (const WorkloadResult& w : results.workloads) out << render_workload(w);
  // Both files are rendered before either is written, so a failure leaves neither half done.
  const std::string json = options.json_path.empty() ? "" : results_to_json(results);
  const std::string csv = options.csv_path.empty() ? "" : results_to_csv(results);
  std::vector<std::string> unsaved;
  const auto save = [&](const std::string& path, const std::string& content, const char* what) {
    if (path.empty()) return;
    if (std::string why = save_output(path, content, what, out); !why.empty()) unsaved.push_back(why);
  };
  save(options.json_path, json, "results");
  save(options.csv_path, csv, "rows");
  if (!unsaved.empty()) throw RuntimeFailure(join(unsaved, "; ", [](const std::string& s) { return s; }));
  return results.passed() ? static_cast<int>(ExitCode::ok) : static_cast<int>(ExitCode::verification_failed);
}

std::string save_output(const std::string& path, const std::string& content, const std::string& what,
                        std::ostream& out) {
  // The path was writable when the run began; one that is not now (a full disk, a folder removed meanwhile, a
  // reader gone from a pipe) sends the file to the temporary folder, and the message names both.
  try {
    write_output(path, content, standard_output());
    out << what << ": " << (path == "-" ? "standard output" : path) << "\n";
    return "";
  } catch (const RuntimeFailure& e) {
    const char* are = what.back() == 's' ? "are" : "is";  // "the results are", "the trace is"
    try {
      return fmt::format("{}; the {} {} in '{}' instead", e.what(), what, are, write_fallback(path, content));
    } catch (const RuntimeFailure& fallback) {
      return fmt::format("{}; nor could the {} be kept in the temporary folder: {}", e.what(), what, fallback.what());
    }
  }
}

int finish_on_rank_zero(World& world, Results& results, WorkloadResult result, const RunOptions& options,
                        std::ostream& out) {
  int code = 0;
  if (world.rank() == 0) {
    results.workloads.push_back(std::move(result));
    code = finish_run(results, options, out);
  }
  return world.broadcast(code);
}

}  // namespace ferry
