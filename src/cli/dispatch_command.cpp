#include "cli/dispatch_command.hpp"

#include <memory>

#include "backend/select.hpp"
#include "bench/dispatch/dispatch.hpp"
#include "cli/model_profile.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry {
namespace {

struct DispatchOptions {
  RunOptions run;
  std::string keys;
  std::string rungs;
  std::string iterations;
  std::string profile_path;
};

dispatch::DispatchConfig make_config(const DispatchOptions& o) {
  dispatch::DispatchConfig c = dispatch::DispatchConfig::defaults(o.run.quick);
  const std::vector<int> devices = selected_devices(o.run);
  if (devices.size() != 1) throw UsageError("dispatch runs on one device: give --device N");
  c.device = devices.front();
  if (!o.keys.empty()) c.keys = parse_count_range(o.keys, "--keys");
  if (!o.rungs.empty()) c.rungs = dispatch::parse_rungs(o.rungs);
  if (!o.iterations.empty()) c.iterations = static_cast<int>(parse_positive_count(o.iterations, "--iterations"));
  return c;
}

int run_dispatch(const DispatchOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  // Everything the user typed is checked before the backend starts or anything runs.
  dispatch::DispatchConfig config = make_config(o);
  const std::unique_ptr<Backend> backend = make_backend(o.run.backend);
  ModelProfile ceilings(o.profile_path);

  Results results = start_results(*backend, command_line, out);
  dispatch::validate(*backend, config);
  const model::DeviceProfile profile =
      ceilings.for_device(*backend, results, config.device, o.run.quiet, config.uses(MemoryKind::pageable));
  config.profile_origin = ceilings.origin();

  results.workloads.push_back(dispatch::run(*backend, config, profile, Progress("dispatch", !o.run.quiet)));
  return finish_run(results, o.run, out);
}

}  // namespace

void add_dispatch_command(CLI::App& run, const std::vector<std::string>& command_line, std::function<int()>& action,
                          std::ostream& out) {
  auto o = std::make_shared<DispatchOptions>();
  CLI::App* command = run.add_subcommand("dispatch", "bitonic sort in 120 dependent kernels, down a ladder of dispatch optimizations");
  command->footer(
      "Sorting 32768 keys with bitonic sort takes 120 dependent passes of a few microseconds each, so dispatching them "
      "costs more than their work. Each rung adds one change to the rung above: baseline (per kernel: create an "
      "event, launch, record, host-wait, destroy; pageable host memory), +prealloc (events made once), +nohostsync "
      "(one wait at the end), +graph (the kernels replayed from a graph), +pinned (pinned host memory), +pdl "
      "(programmatic dependent launch, Hopper), +persistent (one cooperative kernel, a grid barrier between passes), "
      "+onchip (one team sorts in on-chip memory, where the keys fit). A rung the device cannot run is skipped with "
      "the reason. One iteration is H2D + sort + D2H, host wall time, median of --iterations after a warm-up; fresh "
      "keys (duplicates included) every run, every output checked against std::sort. Beside each rung its model: "
      "kernels x launch cost + copies + passes at device copy rate, from link's ceilings.");
  add_run_options(*command, o->run);
  command->add_option("--keys", o->keys,
                      "keys to sort, a power of two, or a sweep such as 1K:16M:x4 (K and M count in 1024s; default 32768)");
  command->add_option("--rungs", o->rungs,
                      "rungs to run, e.g. baseline,+graph,+onchip (default: all: baseline,+prealloc,+nohostsync,+graph,"
                      "+pinned,+pdl,+persistent,+onchip)");
  command->add_option("--iterations", o->iterations, "timed iterations per rung after a warm-up (default 25; 20 with --quick)");
  command->add_option("--profile", o->profile_path,
                      "machine profile from `ferry probe -o` for the model (default: measure it with link in this run)");
  command->callback([&action, &out, o, &command_line] {
    action = [&out, o, &command_line] { return run_dispatch(*o, command_line, out); };
  });
}

}  // namespace ferry
