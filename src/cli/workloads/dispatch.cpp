#include "cli/workload.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "bench/dispatch/dispatch.hpp"
#include "cli/config_options.hpp"
#include "cli/run_options.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "run/driver.hpp"
#include "run/one_device_workload.hpp"

namespace ferry {
namespace {

struct DispatchOptions {
  RunOptions run;
  ConfigOptions<dispatch::DispatchConfig> config;
  std::string profile_path;
};

void add_dispatch_options(CLI::App& command, DispatchOptions& o) {
  add_run_options(command, o.run);
  o.config.add(command, "--keys",
               "keys to sort, a power of two, or a sweep such as 1K:16M:x4 (K and M count in 1024s; default 32768)",
               [](auto& c, const auto& text) { c.keys = parse_count_range(text, "--keys"); });
  o.config.add(command, "--rungs",
               "rungs to run, e.g. baseline,+graph,+onchip (default: all: baseline,+prealloc,+nohostsync,+graph,"
               "+pinned,+pdl,+fused,+persistent,+onchip,+zerocopy,+cluster,+resident)",
               [](auto& c, const auto& text) { c.rungs = dispatch::parse_rungs(text); });
  o.config.add(command, "--tile",
               "keys one team sorts on chip in +fused, +persistent, +zerocopy, +cluster and +resident, a power of "
               "two (default 2048; at most the keys)",
               [](auto& c, const auto& text) {
                 const std::vector<std::uint64_t> tile = parse_count_range(text, "--tile");
                 if (tile.size() != 1) throw UsageError(fmt::format("--tile {}: one tile size, not a sweep", text));
                 c.tile = tile.front();
               });
  o.config.add(command, "--iterations", "timed iterations per rung after a warm-up (default 25; 20 with --quick)",
               [](auto& c, const auto& text) { c.iterations = parse_positive_int(text, "--iterations"); });
  add_ceilings_profile_option(command, o.profile_path);
}

dispatch::DispatchConfig make_config(const DispatchOptions& o) {
  dispatch::DispatchConfig c = dispatch::DispatchConfig::defaults(o.run.quick);
  c.device = one_device(o.run, "dispatch");
  o.config.apply(c);
  // A row this run does not measure is refused by validate(), which knows what the device runs.
  if (const char* row = std::getenv(corrupt_output_variable); row && *row)
    c.corrupt_row = dispatch::parse_row_name(row);
  return c;
}

int run_dispatch(const DispatchOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  // Everything the user typed is checked before the backend starts or anything runs.
  dispatch::DispatchConfig config = make_config(o);
  const Driver driver(o.run, command_line, out);
  Backend& backend = driver.backend();
  const OneDeviceWorkload workload{
      .name = "dispatch",
      .device = config.device,
      .profile_path = o.profile_path,
      .with_pageable = config.uses(MemoryKind::pageable),
      .validate = [&] { dispatch::validate(backend, config); },
      .plan =
          [&] { return dispatch::plan_run(config, backend.capabilities(), backend.device_features(config.device)); },
      .run =
          [&](const Machine&, const LinkCeilings& ceilings, const Progress& progress) {
            config.profile_origin = ceilings.origin;
            return dispatch::run(backend, config, ceilings.device, progress);
          },
  };
  return run_one_device_workload(driver, workload);
}

void add_dispatch_command(const Commands& c) {
  auto o = std::make_shared<DispatchOptions>();
  CLI::App* command = c.run.add_subcommand("dispatch");  // described by the declaration's summary
  command->footer(
      "Sorting 32768 keys with bitonic sort takes 120 dependent passes of a few microseconds each, so dispatching them "
      "costs more than their work. Each rung adds one change to the rung above: baseline (per kernel: create an "
      "event, launch, record, host-wait, destroy; pageable host memory), +prealloc (events made once), +nohostsync "
      "(one wait at the end), +graph (the kernels replayed from a graph), +pinned (pinned host memory), +pdl "
      "(programmatic dependent launch, Hopper), +fused (teams sort tiles of --tile keys on chip, many passes to a "
      "kernel; only passes longer than a tile go through device memory: 10 kernels instead of 120 at 32768 keys), +persistent "
      "(+fused's kernels as one cooperative kernel, a grid barrier where each ended), +onchip (one team sorts every "
      "key on chip, where they fit), +zerocopy (+fused without copies: its first kernel reads the keys from mapped "
      "host memory, its last writes them there), +cluster (+zerocopy's kernels as one kernel of a thread-block "
      "cluster, Hopper, that holds every key on chip, a tile a team: up to 16 tiles), +resident (+cluster's kernel "
      "launched once and left running: each sort is a doorbell in mapped memory and done flags the host polls). A "
      "rung the device cannot run is skipped with the reason. One iteration is H2D + sort + D2H (the last three "
      "rungs: the sort alone), host wall time, median of --iterations after a warm-up; fresh "
      "keys (duplicates included) every run, every output checked against std::sort. Beside each rung its model: "
      "kernels x launch cost + barriers x barrier cost + copies + each kernel's memory traffic at device copy rate, "
      "from link's ceilings.");
  add_dispatch_options(*command, *o);
  c.on_chosen(*command, [o](const auto& command_line, auto& out) { return run_dispatch(*o, command_line, out); });
}

}  // namespace

// The declaration the build gathers into workloads() (cli/workload.hpp).
Workload dispatch_workload() {
  const dispatch::DispatchConfig defaults;
  const std::uint64_t keys = defaults.keys.front();
  const std::vector<std::string> rungs =
      names_of(dispatch::ladder, [](dispatch::Rung r) { return dispatch::plan(r).name; });
  return {
      .name = "dispatch",
      .summary = fmt::format("{} dependent kernels (bitonic sort) and the ladder of dispatch optimizations that "
                             "removes their cost",
                             dispatch::pass_count(keys)),
      .measures = fmt::format("H2D + sort + D2H of {} keys (or a --keys sweep) per rung, from a baseline with a host "
                              "wait per kernel to {} ({} rungs); every output checked against std::sort, each rung's "
                              "delta and model beside it",
                              keys, rungs.back(), rungs.size()),
      .lists = {{"rungs (--rungs)", rungs}},
      .add_commands = add_dispatch_command,
  };
}

}  // namespace ferry
