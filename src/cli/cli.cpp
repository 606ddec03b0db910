#include "cli/cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <functional>

#include "bench/registry.hpp"
#include "cli/beff_command.hpp"
#include "cli/dispatch_command.hpp"
#include "cli/link_command.hpp"
#include "cli/overlap_command.hpp"
#include "cli/python_command.hpp"
#include "cli/stream_command.hpp"
#include "cli/topo_command.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "run/standard_output.hpp"
#include "transport/world.hpp"

namespace ferry {
namespace {

std::string workload_names() {
  return join(workloads(), ", ", [](const WorkloadInfo& w) { return std::string(w.name); });
}

int list_workloads(std::ostream& out) {
  for (const auto& w : workloads()) {
    out << fmt::format("{:<10} {}\n{:<10} measures: {}\n", w.name, w.summary, "", w.measures);
    for (const Listing& list : w.lists)
      out << fmt::format("{:<10} {}: {}\n", "", list.what,
                         join(list.names, ", ", [](const std::string& name) { return name; }));
  }
  return 0;
}

// One line naming the problem. Under mpirun it names the rank too, and ends
// every rank: the others may be waiting for this one.
int fail(const std::string& message, ExitCode code, std::ostream& err) {
  const World& w = world();
  if (!w.distributed()) {
    err << "ferry: " << message << "\n";
    return static_cast<int>(code);
  }
  err << fmt::format("ferry: rank {} ({}): {}\n", w.rank(), w.host(), message) << std::flush;
  w.abort(static_cast<int>(code));
}

}  // namespace

int ferry_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // A reader that closes its pipe early (`ferry run link --json - | head -c 100`) makes a write fail with EPIPE,
  // which names the cause and keeps the results in the fallback file, instead of killing the process.
  std::signal(SIGPIPE, SIG_IGN);
  std::ostream tables(out.rdbuf());  // out, or err once an output option takes standard output (`-`)
  const StandardOutputScope dash_means(out, tables, err);
  std::vector<std::string> command_line = {"ferry"};
  command_line.insert(command_line.end(), args.begin(), args.end());

  try {
    // Under mpirun every rank runs this; only beff and topo know how to share the work.
    if (world().distributed() && !(args.size() >= 2 && args[0] == "run" && (args[1] == "beff" || args[1] == "topo")))
      throw UsageError(fmt::format("only `ferry run beff` and `ferry run topo` run across MPI ranks ({} were "
                                   "started): run other commands without mpirun",
                                   world().size()));

    if (!args.empty() && is_python_command(args[0])) return forward_to_python(args);

    // Name an unknown workload before the parser calls it an unexpected argument.
    if (args.size() >= 2 && (args[0] == "run" || args[0] == "tune") && !args[1].empty() && args[1][0] != '-' && !find_workload(args[1]))
      throw UsageError(fmt::format("unknown workload '{}': ferry knows {} (see `ferry list`)", args[1], workload_names()));

    CLI::App app("ferry: measures, models and speeds up how data moves between hosts and GPUs", "ferry");
    app.set_version_flag("--version", FERRY_VERSION);
    app.require_subcommand(1);
    std::function<int()> action;

    app.add_subcommand("list", "the workloads and what each measures")->callback([&] {
      action = [&] { return list_workloads(out); };
    });
    CLI::App* run = app.add_subcommand("run", "run a workload: ferry run WORKLOAD [options] (ferry run WORKLOAD --help)");
    run->require_subcommand(1);
    CLI::App* tune = app.add_subcommand("tune", "search a workload's settings for a target: ferry tune stream --latency 20us");
    tune->require_subcommand(1);
    CLI::App* model = app.add_subcommand("model", "a workload's model beyond this machine: ferry model beff --devices 512");
    model->require_subcommand(1);
    // Listed for --help only: both are forwarded to the Python package above, before parsing.
    app.add_subcommand("report", "an HTML page with plots from results files: ferry report R.json [...] -o report.html "
                                 "(ferry report --help)");
    app.add_subcommand("compare", "ratios of every figure of two results files; exits 1 past a regression threshold: "
                                  "ferry compare BASE.json NEW.json --threshold 5%");
    add_link_commands(app, *run, command_line, action, tables);
    add_stream_commands(*run, *tune, command_line, action, tables);
    add_overlap_command(*run, command_line, action, tables);
    add_dispatch_command(*run, command_line, action, tables);
    add_beff_commands(*run, *model, command_line, action, tables);
    add_topo_command(*run, command_line, action, tables);

    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes arguments last-first
    try {
      app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e, out, err);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e, out, err);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e, out, err);
    } catch (const CLI::ParseError& e) {
      err << "ferry: " << e.what() << " (--help lists the options)\n";
      return static_cast<int>(ExitCode::bad_input);
    }
    return action ? action() : 0;
  } catch (const Error& e) {
    return fail(e.what(), e.code(), err);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), ExitCode::runtime_failure, err);
  }
}

}  // namespace ferry
