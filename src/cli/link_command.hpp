#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ferry {

// Adds `run link` under `run` and `probe` under `app`; each sets `action` to
// what it will do once parsing succeeded.
void add_link_commands(CLI::App& app, CLI::App& run, const std::vector<std::string>& command_line,
                       std::function<int()>& action, std::ostream& out);

}  // namespace ferry
