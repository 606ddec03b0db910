#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ferry {

// Adds `run stream` under `run` and `stream` under `tune`.
void add_stream_commands(CLI::App& run, CLI::App& tune, const std::vector<std::string>& command_line,
                         std::function<int()>& action, std::ostream& out);

}  // namespace ferry
