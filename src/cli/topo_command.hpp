#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ferry {

// Adds `run topo` under `run`.
void add_topo_command(CLI::App& run, const std::vector<std::string>& command_line, std::function<int()>& action,
                      std::ostream& out);

}  // namespace ferry
