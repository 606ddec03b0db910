#include "cli/workload.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "bench/link/link.hpp"
#include "cli/run_options.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/table.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "run/driver.hpp"
#include "run/dry_run.hpp"

namespace ferry {
namespace {

struct LinkOptions {
  RunOptions run;
  std::string sizes;
  std::string memory;
  std::string latency_sizes;
  std::string queued_sizes;
  std::string device_copy_bytes;
  std::string peer_bytes;
  std::string kernels;
  std::string round_trips;
  std::string profile_path;  // probe only
};

std::vector<MemoryKind> parse_memory(const std::string& text) {
  std::vector<MemoryKind> kinds;
  for (std::string_view name : split(text, ',')) {
    if (name == "pinned") kinds.push_back(MemoryKind::pinned);
    else if (name == "pageable") kinds.push_back(MemoryKind::pageable);
    else if (name == "mapped") kinds.push_back(MemoryKind::mapped);
    else throw UsageError(fmt::format("unknown host memory '{}': choose pinned, pageable or mapped", name));
  }
  return kinds;
}

void add_link_options(CLI::App& command, LinkOptions& o) {
  add_run_options(command, o.run);
  command.add_option("--sizes", o.sizes,
                     "bandwidth sweep, e.g. 4K:1G:x4, 4K:64K:+4K or 1M,16M (default 4K:1G:x4 on a GPU)");
  command.add_option("--memory", o.memory, "host memory kinds to sweep: pinned,pageable,mapped (default all)");
  command.add_option("--latency-sizes", o.latency_sizes, "small-copy latency sizes (default 4:1M:x4 on a GPU)");
  command.add_option(
      "--queued-sizes", o.queued_sizes,
      "sizes of the copies queued back to back, the chunked designs' ceiling (default 4K:64M:x4 on a GPU)");
  command.add_option("--device-copy-size", o.device_copy_bytes, "size of the device-to-device copy (default 1G)");
  command.add_option("--peer-size", o.peer_bytes, "size of each peer copy (default 256M)");
  command.add_option("--kernels", o.kernels, "empty kernels per launch-rate and graph sample (default 1000)");
  command.add_option("--round-trips", o.round_trips, "persistent-kernel flag round trips (default 10000)");
}

link::LinkConfig make_config(const Backend& backend, const LinkOptions& o) {
  link::LinkConfig c = link::LinkConfig::defaults(backend.capabilities(), o.run.quick);
  c.devices = selected_devices(o.run);
  if (!o.sizes.empty()) c.sweep_bytes = parse_byte_range(o.sizes);
  if (!o.memory.empty()) c.host_memory = parse_memory(o.memory);
  if (!o.latency_sizes.empty()) c.latency_bytes = parse_byte_range(o.latency_sizes);
  if (!o.queued_sizes.empty()) c.queued_copy_bytes = parse_byte_range(o.queued_sizes);
  if (!o.device_copy_bytes.empty()) c.device_copy_bytes = parse_bytes(o.device_copy_bytes);
  if (!o.peer_bytes.empty()) c.peer_bytes = parse_bytes(o.peer_bytes);
  if (!o.kernels.empty()) c.kernels_per_sample = parse_positive_int(o.kernels, "--kernels");
  if (!o.round_trips.empty()) c.flag_round_trips = parse_positive_int(o.round_trips, "--round-trips");
  if (const char* hook = std::getenv(corrupt_output_variable))
    link::parse_corruption(hook, c);  // link::validate checks the section
  return c;
}

int run_link(const LinkOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  // Everything the user typed is checked before the backend starts or anything runs.
  if (!o.sizes.empty()) parse_byte_range(o.sizes);
  const Driver driver(o.run, command_line, out);
  const link::LinkConfig config = make_config(driver.backend(), o);
  link::validate(driver.backend(), config);
  if (o.run.dry_run)
    return driver.dry_run([&](std::ostream& shown) {
      const Machine machine = driver.backend().describe_machine();
      return print_dry_run(machine, {{"link", link::plan_run(driver.backend(), config)}},
                           dry_run_pace(machine, nullptr, config.devices.front()), shown);
    });

  Results results = driver.start();
  link::LinkOutcome outcome = link::run(driver.backend(), results.machine, config, driver.progress("link"));
  const int code = driver.finish(results, std::move(outcome.result));

  if (!o.profile_path.empty()) {
    if (code != 0) throw RuntimeFailure(fmt::format("verification FAILED: no profile written to '{}'", o.profile_path));
    if (std::string why = save_output(o.profile_path, model::profile_to_json(outcome.profile), "machine profile", out);
        !why.empty())
      throw RuntimeFailure(why);
  }
  return code;
}

void add_link_commands(CLI::App& app, CLI::App& run, const std::vector<std::string>& command_line,
                       std::function<int()>& action, std::ostream& out) {
  auto options = std::make_shared<LinkOptions>();
  CLI::App* link = run.add_subcommand("link");  // described by the declaration's summary
  link->footer(
      "Every copy is verified byte for byte; bandwidth is timed with CUDA events, latency with the host's steady "
      "clock. Beside each figure: a model (latency + bytes / the PCIe rate ferry derives from the link's generation "
      "and width) and the measured share of it.");
  add_link_options(*link, *options);
  link->callback([&action, &out, options, &command_line] {
    action = [&out, options, &command_line] { return run_link(*options, command_line, out); };
  });

  auto probe_options = std::make_shared<LinkOptions>();
  CLI::App* probe = app.add_subcommand("probe", "run `link` and write the machine profile the models read");
  add_link_options(*probe, *probe_options);
  probe
      ->add_option("-o,--output", probe_options->profile_path,
                   "the machine profile to write (JSON); - for standard output, and the tables then go to standard "
                   "error")
      ->required()
      ->check(writable_file("--output"));
  probe->callback([&action, &out, probe_options, &command_line] {
    action = [&out, probe_options, &command_line] { return run_link(*probe_options, command_line, out); };
  });
}

}  // namespace

// The declaration the build gathers into workloads() (cli/workload.hpp).
Workload link_workload() {
  return {
      .name = "link",
      .summary = "the machine's ceilings, which every model builds on",
      .measures = "host <-> device bandwidth for pinned, pageable and mapped memory over a size sweep, zero-copy, "
                  "latencies, dispatch and flag costs on each device, and peer copies, latencies and flags between "
                  "each pair, every row checked; the ceilings the other workloads' models read",
      .lists = {{"sections (its tables)", names_of(link::sections(), [](const Section& s) { return s.id; })}},
      .add_commands = [](const Commands& c) { add_link_commands(c.app, c.run, c.command_line, c.action, c.out); },
  };
}

}  // namespace ferry
