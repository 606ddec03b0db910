#include "cli/run_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/text.hpp"
#include "run/standard_output.hpp"

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

CLI::Validator writable_file(const std::string& option) {
  return CLI::Validator(
      [option](std::string& path) {
        if (path == "-") return take_standard_output(option);  // on every rank: each prints its tables elsewhere
        if (launcher_rank() != 0) return std::string();        // only rank 0 writes; the path may be on its host alone
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

}  // namespace ferry
