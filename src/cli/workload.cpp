#include "cli/workload.hpp"

#include <algorithm>

namespace ferry {

void Commands::on_chosen(
    CLI::App& command, std::function<int(const std::vector<std::string>& command_line, std::ostream& out)> run) const {
  command.callback([&action = action, &command_line = command_line, &out = out, run = std::move(run)] {
    action = [&command_line, &out, run] { return run(command_line, out); };
  });
}

const Workload* find_workload(std::string_view name) {
  const auto& all = workloads();
  const auto it = std::find_if(all.begin(), all.end(), [&](const Workload& w) { return w.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace ferry
