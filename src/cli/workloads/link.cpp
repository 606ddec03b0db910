#include "cli/workload.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "bench/link/link.hpp"
#include "cli/config_options.hpp"
#include "cli/run_options.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "run/driver.hpp"
#include "run/dry_run.hpp"
#include "run/run_results.hpp"

namespace ferry {
namespace {

struct LinkOptions {
  RunOptions run;
  std::string sizes;  // checked before the backend starts
  ConfigOptions<link::LinkConfig> config;
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
  o.config.add(command, "--memory", "host memory kinds to sweep: pinned,pageable,mapped (default all)",
               [](auto& c, const auto& text) { c.host_memory = parse_memory(text); });
  o.config.add(command, "--latency-sizes", "small-copy latency sizes (default 4:1M:x4 on a GPU)",
               [](auto& c, const auto& text) { c.latency_bytes = parse_byte_range(text); });
  o.config.add(command, "--queued-sizes",
               "sizes of the copies queued back to back, the chunked designs' ceiling (default 4K:64M:x4 on a GPU)",
               [](auto& c, const auto& text) { c.queued_copy_bytes = parse_byte_range(text); });
  o.config.add(command, "--device-copy-size", "size of the device-to-device copy (default 1G)",
               [](auto& c, const auto& text) { c.device_copy_bytes = parse_bytes(text); });
  o.config.add(command, "--peer-size", "size of each peer copy (default 256M)",
               [](auto& c, const auto& text) { c.peer_bytes = parse_bytes(text); });
  o.config.add(command, "--kernels", "empty kernels per launch-rate and graph sample (default 1000)",
               [](auto& c, const auto& text) { c.kernels_per_sample = parse_positive_int(text, "--kernels"); });
  o.config.add(command, "--round-trips", "persistent-kernel flag round trips (default 10000)",
               [](auto& c, const auto& text) { c.flag_round_trips = parse_positive_int(text, "--round-trips"); });
}

link::LinkConfig make_config(const Backend& backend, const LinkOptions& o) {
  link::LinkConfig c = link::LinkConfig::defaults(backend.capabilities(), o.run.quick);
  c.devices = selected_devices(o.run);
  if (!o.sizes.empty()) c.sweep_bytes = parse_byte_range(o.sizes);
  o.config.apply(c);
  if (const char* hook = std::getenv(corrupt_output_variable))
    link::parse_corruption(hook, c);  // link::validate checks the section
  return c;
}

int run_link(const LinkOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  // The sizes need no device: a malformed one is refused before the backend starts, the rest before anything runs.
  if (!o.sizes.empty()) parse_byte_range(o.sizes);
  const Driver driver(o.run, command_line, out);
  Backend& backend = driver.backend();
  const link::LinkConfig config = make_config(backend, o);
  link::validate(backend, config);
  if (o.run.dry_run)
    return driver.dry_run([&](std::ostream& shown) {
      const Machine machine = backend.describe_machine();
      return print_dry_run(machine, {{"link", link::plan_run(backend, config)}},
                           dry_run_pace(machine, nullptr, config.devices.front()), shown);
    });

  Results results = driver.start();
  link::LinkOutcome outcome = link::run(backend, results.machine, config, driver.progress("link"));
  const int code = driver.finish(results, std::move(outcome.result));

  if (!o.profile_path.empty()) {
    if (code != 0) throw RuntimeFailure(fmt::format("verification FAILED: no profile written to '{}'", o.profile_path));
    if (std::string why = save_output(o.profile_path, model::profile_to_json(outcome.profile), "machine profile", out);
        !why.empty())
      throw RuntimeFailure(why);
  }
  return code;
}

void add_link_commands(const Commands& c) {
  auto o = std::make_shared<LinkOptions>();
  CLI::App* link = c.run.add_subcommand("link");  // described by the declaration's summary
  link->footer(
      "Every copy is verified byte for byte; bandwidth is timed with CUDA events, latency with the host's steady "
      "clock. Beside each figure: a model (latency + bytes / the PCIe rate ferry derives from the link's generation "
      "and width) and the measured share of it.");
  add_link_options(*link, *o);
  c.on_chosen(*link, [o](const auto& command_line, auto& out) { return run_link(*o, command_line, out); });

  auto p = std::make_shared<LinkOptions>();
  CLI::App* probe = c.app.add_subcommand("probe", "run `link` and write the machine profile the models read");
  add_link_options(*probe, *p);
  probe
      ->add_option("-o,--output", p->profile_path,
                   "the machine profile to write (JSON); - for standard output, and the tables then go to standard "
                   "error")
      ->required()
      ->check(writable_file("--output"));
  c.on_chosen(*probe, [p](const auto& command_line, auto& out) { return run_link(*p, command_line, out); });
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
      .add_commands = add_link_commands,
  };
}

}  // namespace ferry
