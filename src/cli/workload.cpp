#include "cli/workload.hpp"

#include <algorithm>

namespace ferry {

const Workload* find_workload(std::string_view name) {
  const auto& all = workloads();
  const auto it = std::find_if(all.begin(), all.end(), [&](const Workload& w) { return w.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace ferry
