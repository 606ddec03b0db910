#pragma once
// A workload as ferry knows it, declared once in cli/workloads/<name>.cpp: its
// name, what it is and what it measures (`ferry list`), the names its options
// take (read from the workload's own tables, so the list cannot drift from the
// code), whether it runs under mpirun, and its commands. The build gathers the
// files of cli/workloads/ into workloads(); no list is kept by hand.
#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ferry {

// One of a workload's tables, named as its option takes the names.
struct Listing {
  std::string what;                // "designs (--design)"
  std::vector<std::string> names;  // "offload", "chunked", ...
};

// Where a workload adds its commands, and what they run with.
struct Commands {
  CLI::App& app;    // top-level commands (link's `probe`)
  CLI::App& run;    // `ferry run NAME`
  CLI::App& tune;   // `ferry tune NAME`
  CLI::App& model;  // `ferry model NAME`
  const std::vector<std::string>& command_line;
  std::function<int()>& action;  // what the command the parser chose does
  std::ostream& out;             // the banner and tables

  // What `command` does once the parser chooses it: `run` with the command line and `out`.
  void on_chosen(CLI::App& command,
                 std::function<int(const std::vector<std::string>& command_line, std::ostream& out)> run) const;
};

struct Workload {
  // `ferry run NAME`, its folder src/bench/NAME/, its results' "workload", and
  // the report section python/ferry/sections/NAME.py that declares WORKLOAD = "NAME".
  std::string name;
  std::string summary;              // one line
  std::string measures;             // what its rows hold
  std::vector<Listing> lists = {};  // none for a workload without named choices
  bool runs_under_mpi = false;      // `mpirun ... ferry run NAME` shares the work between the ranks
  void (*add_commands)(const Commands&) = nullptr;
};

// The names of `items`, as `name(item)` gives each: a listing read from a workload's own table.
template <class Range, class Name>
std::vector<std::string> names_of(const Range& items, Name name) {
  std::vector<std::string> names;
  for (const auto& item : items) names.push_back(std::string(name(item)));
  return names;
}

// Every workload, by name: one per file of cli/workloads/, gathered by
// src/CMakeLists.txt into a generated workload_list.cpp.
const std::vector<Workload>& workloads();
const Workload* find_workload(std::string_view name);

}  // namespace ferry
