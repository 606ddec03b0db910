#include "cli/workload.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "bench/overlap/overlap.hpp"
#include "cli/config_options.hpp"
#include "cli/run_options.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "run/driver.hpp"
#include "run/one_device_workload.hpp"
#include "run/run_results.hpp"

namespace ferry {
namespace {

struct OverlapOptions {
  RunOptions run;
  ConfigOptions<overlap::OverlapConfig> config;
  std::string trace_path;
  std::string profile_path;
};

void add_overlap_options(CLI::App& command, OverlapOptions& o) {
  add_run_options(command, o.run);
  o.config.add(command, "--size", "bytes per vector (default 1G on a GPU: 256 Mi int32; 16M on the emulator)",
               [](auto& c, const auto& text) {
                 const std::uint64_t bytes = parse_bytes(text);
                 if (bytes % 4 != 0)
                   throw UsageError(fmt::format("--size {} is not a whole number of 4-byte words", text));
                 c.elements = bytes / 4;
               });
  o.config.add(command, "--splits", "sub-buffer counts k to sweep, e.g. 1:256:x2 (default) or 1,8,64",
               [](auto& c, const auto& text) {
                 c.splits.clear();
                 for (std::uint64_t k : parse_count_range(text, "--splits")) {
                   if (k > 65536) throw UsageError(fmt::format("--splits must be 1..65536, not {}", k));
                   c.splits.push_back(static_cast<int>(k));
                 }
               });
  o.config.add(command, "--min-split", "smallest sub-buffer (default 1M); smaller requests are clamped",
               [](auto& c, const auto& text) { c.min_split_bytes = parse_bytes(text); });
  o.config.add(command, "--host", "host memory for a, b and c: pinned (default) or pageable",
               [](auto& c, const auto& text) {
                 if (text == "pinned") c.host = MemoryKind::pinned;
                 else if (text == "pageable") c.host = MemoryKind::pageable;
                 else throw UsageError(fmt::format("unknown --host '{}': pinned or pageable", text));
               });
  o.config.add(command, "--streams", "streams the sub-buffer chains go round-robin over (default 4)",
               [](auto& c, const auto& text) { c.streams = parse_positive_int(text, "--streams"); });
  o.config.add(command, "--iterations", "timed runs per variant after a warm-up (default 7; 5 on the emulator)",
               [](auto& c, const auto& text) { c.iterations = parse_positive_int(text, "--iterations"); });
  command
      .add_option("--trace", o.trace_path,
                  "write a Chrome trace (JSON) of one more pipelined run at the best k: a lane per stream, a box "
                  "per copy and add, timed by events; - for standard output, and the tables then go to standard "
                  "error")
      ->check(writable_file("--trace"));
  add_ceilings_profile_option(command, o.profile_path);
}

overlap::OverlapConfig make_config(const Backend& backend, const OverlapOptions& o) {
  overlap::OverlapConfig c = overlap::OverlapConfig::defaults(backend.capabilities(), o.run.quick);
  c.device = one_device(o.run, "overlap");
  o.config.apply(c);
  c.want_trace = !o.trace_path.empty();
  if (const char* row = std::getenv(corrupt_output_variable))
    c.corrupt_row = row;  // refused by validate() unless a row
  return c;
}

int run_overlap(const OverlapOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  const Driver driver(o.run, command_line, out);
  Backend& backend = driver.backend();
  overlap::OverlapConfig config = make_config(backend, o);
  overlap::OverlapOutcome outcome;
  const OneDeviceWorkload workload{
      .name = "overlap",
      .device = config.device,
      .profile_path = o.profile_path,
      .with_pageable = config.host == MemoryKind::pageable,
      .validate = [&] { overlap::validate(backend, config); },
      .plan = [&] { return overlap::plan_run(config); },
      .run =
          [&](const Machine&, const LinkCeilings& ceilings, const Progress& progress) {
            config.profile_origin = ceilings.origin;
            outcome = overlap::run(backend, config, ceilings.device, progress);
            return std::move(outcome.result);
          },
  };
  const int code = run_one_device_workload(driver, workload);
  if (config.want_trace && !outcome.trace.boxes.empty()) {
    if (std::string why = save_output(o.trace_path, trace_to_json(outcome.trace), "trace", out); !why.empty())
      throw RuntimeFailure(why);
    out << "  open the trace in https://ui.perfetto.dev or chrome://tracing\n";
  }
  return code;
}

void add_overlap_command(const Commands& c) {
  auto o = std::make_shared<OverlapOptions>();
  CLI::App* command = c.run.add_subcommand("overlap");  // described by the declaration's summary
  command->footer(
      "c = a + b three ways: on the host (all cores), serially on the device (H2D a and b, add, D2H c), and pipelined: "
      "the vectors cut into k sub-buffers (4 KiB aligned, at least --min-split), each sub-buffer's H2D -> add -> D2H "
      "chained on one of --streams streams, ordered by events, one host wait at the end. Times are host wall times "
      "(median of --iterations after a warm-up); every word of c is checked. Beside each time the model: serial = its "
      "steps in turn; pipelined = the busiest stage plus one sub-buffer through the other two, from link's ceilings.");
  add_overlap_options(*command, *o);
  c.on_chosen(*command, [o](const auto& command_line, auto& out) { return run_overlap(*o, command_line, out); });
}

}  // namespace

// The declaration the build gathers into workloads() (cli/workload.hpp).
Workload overlap_workload() {
  return {
      .name = "overlap",
      .summary = "a vector add split into k sub-buffers: how much overlapping copies and kernels buys",
      .measures = "host wall time of c = a + b on the host, serially on the device and pipelined over k sub-buffers "
                  "on several streams (k swept), every word checked, beside the serial sum and the pipelined bound "
                  "from link's ceilings; `--trace` writes a Chrome trace of the overlap",
      .add_commands = add_overlap_command,
  };
}

}  // namespace ferry
