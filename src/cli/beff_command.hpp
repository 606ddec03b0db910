#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ferry {

// Adds `run beff` under `run` and `model beff` under `model`.
void add_beff_commands(CLI::App& run, CLI::App& model, const std::vector<std::string>& command_line,
                       std::function<int()>& action, std::ostream& out);

}  // namespace ferry
