#include "cli/cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <functional>

#include "cli/command_files.hpp"
#include "cli/doctor_command.hpp"
#include "cli/python_command.hpp"
#include "cli/workload.hpp"
#include "core/error.hpp"
#include "core/run_journal.hpp"
#include "core/text.hpp"
#include "run/standard_output.hpp"
#include "transport/world.hpp"

namespace ferry {
namespace {

std::string workload_names() {
  return join(workloads(), ", ", [](const Workload& w) { return w.name; });
}

// "`ferry run beff`, `ferry run topo` and `ferry doctor`": the commands that run across MPI ranks.
std::string commands_under_mpi() {
  std::vector<std::string> commands;
  for (const Workload& w : workloads())
    if (w.runs_under_mpi) commands.push_back(fmt::format("`ferry run {}`", w.name));
  commands.push_back("`ferry doctor`");  // fleet mode (doctor/measure/fleet.hpp)
  if (commands.size() < 2) return join(commands, "", [](const std::string& c) { return c; });
  const std::string last = commands.back();
  commands.pop_back();
  return join(commands, ", ", [](const std::string& c) { return c; }) + " and " + last;
}

int list_workloads(bool names_only, std::ostream& out) {
  for (const Workload& w : workloads()) {
    if (names_only) {
      out << w.name << "\n";
      continue;
    }
    out << fmt::format("{:<10} {}\n{:<10} measures: {}\n", w.name, w.summary, "", w.measures);
    for (const Listing& list : w.lists)
      out << fmt::format("{:<10} {}: {}\n", "", list.what,
                         join(list.names, ", ", [](const std::string& name) { return name; }));
  }
  return 0;
}

// A message with every word longer than a reader can take in (a 100 KB argument echoed back) cut to its ends:
// "'aaaa[...102400 characters in all...]aaaa' is not a size" says as much.
std::string shorten_long_words(const std::string& message) {
  constexpr std::size_t longest = 200;
  std::string shortened;
  std::size_t at = 0;
  while (at < message.size()) {
    const std::size_t space = message.find_first_of(" \n", at);
    const std::size_t end = space == std::string::npos ? message.size() : space;
    const std::string_view word = std::string_view(message).substr(at, end - at);
    if (word.size() > longest)
      shortened += fmt::format("{}[...{} characters in all...]{}", word.substr(0, 60), word.size(),
                               word.substr(word.size() - 20));
    else shortened += word;
    if (end < message.size()) shortened += message[end];
    at = end + 1;
  }
  return shortened;
}

// "list, run, tune, ...": the commands the parser knows.
std::string command_names(CLI::App& app) {
  return join(app.get_subcommands([](CLI::App*) { return true; }), ", ",
              [](const CLI::App* command) { return command->get_name(); });
}

// One line naming the problem. Under mpirun it names the rank too, and ends
// every rank: the others may be waiting for this one.
int fail(const std::string& long_message, ExitCode code, std::ostream& err) {
  const std::string message = shorten_long_words(long_message);
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
  const CommandFiles files;
  RunJournal journal;
  std::vector<std::string> command_line = {"ferry"};
  command_line.insert(command_line.end(), args.begin(), args.end());

  try {
    // Under mpirun every rank runs this; only the workloads declared to share the work between ranks can.
    if (world().distributed()) {
      const Workload* running = args.size() >= 2 && args[0] == "run" ? find_workload(args[1]) : nullptr;
      const bool doctor = !args.empty() && args[0] == "doctor";
      if (!doctor && (!running || !running->runs_under_mpi))
        throw UsageError(
            fmt::format("only {} run across MPI ranks ({} were started): run other commands without mpirun",
                        commands_under_mpi(), world().size()));
    }

    if (!args.empty() && is_python_command(args[0])) return forward_to_python(args);

    // Name an unknown workload before the parser calls it an unexpected argument.
    if (args.size() >= 2 && (args[0] == "run" || args[0] == "tune") && !args[1].empty() && args[1][0] != '-' &&
        !find_workload(args[1]))
      throw UsageError(
          fmt::format("unknown workload '{}': ferry knows {} (see `ferry list`)", args[1], workload_names()));

    CLI::App app("ferry: measures, models and speeds up how data moves between hosts and GPUs", "ferry");
    app.set_version_flag("--version", FERRY_VERSION);
    app.require_subcommand(1);
    std::function<int()> action;

    bool names_only = false;
    CLI::App* list = app.add_subcommand("list", "the workloads and what each measures");
    list->add_flag("--names", names_only, "one workload name a line, nothing else");
    list->callback([&] { action = [&] { return list_workloads(names_only, out); }; });
    CLI::App* run =
        app.add_subcommand("run", "run a workload: ferry run WORKLOAD [options] (ferry run WORKLOAD --help)");
    run->require_subcommand(1);
    CLI::App* tune =
        app.add_subcommand("tune", "search a workload's settings for a target: ferry tune stream --latency 20us");
    tune->require_subcommand(1);
    CLI::App* model =
        app.add_subcommand("model", "a workload's model beyond this machine: ferry model beff --devices 512");
    model->require_subcommand(1);
    // Listed for --help only: both are forwarded to the Python package above, before parsing.
    app.add_subcommand("report", "an HTML page with plots from results files: ferry report R.json [...] -o report.html "
                                 "(ferry report --help)");
    app.add_subcommand("compare", "ratios of every figure of two results files; exits 1 past a regression threshold: "
                                  "ferry compare BASE.json NEW.json --threshold 5%");
    const Commands commands{app, *run, *tune, *model, command_line, action, tables};
    for (const Workload& w : workloads()) {
      w.add_commands(commands);
      run->get_subcommand(w.name)->description(w.summary);  // the line `ferry list` shows
    }
    add_doctor_command(commands);

    // CLI11 would say only "A subcommand is required" of a word it does not know.
    if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
      const auto known = app.get_subcommands([&](CLI::App* command) { return command->check_name(args[0]); });
      if (known.empty())
        throw UsageError(fmt::format("unknown command '{}': ferry's commands are {} (ferry --help says what each does)",
                                     args[0], command_names(app)));
      if (args.size() == 1 && known.front()->get_require_subcommand_min() > 0)
        throw UsageError(fmt::format("`ferry {0}` needs a workload: ferry {0} WORKLOAD, one of {1} (ferry {0} --help)",
                                     args[0], command_names(*known.front())));
    }

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
      err << "ferry: " << shorten_long_words(e.what()) << " (--help lists the options)\n";
      return static_cast<int>(ExitCode::bad_input);
    }
    if (std::string why = files.why_colliding(); !why.empty()) throw UsageError(why);
    return action ? action() : 0;
  } catch (const Error& e) {
    // Bad input found after the banner has no rows to keep; anything else ended a run that may have.
    const std::string kept = journal.keep_unfinished(e.what(), e.code() != ExitCode::bad_input);
    return fail(kept.empty() ? e.what() : fmt::format("{}; {}", e.what(), kept), e.code(), err);
  } catch (const std::exception& e) {
    const std::string message = std::string("internal error: ") + e.what();
    const std::string kept = journal.keep_unfinished(message, true);
    return fail(kept.empty() ? message : fmt::format("{}; {}", message, kept), ExitCode::runtime_failure, err);
  }
}

}  // namespace ferry
