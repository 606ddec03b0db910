#pragma once
// The workloads ferry can run, for `ferry list` and for naming errors.
#include <string_view>
#include <vector>

namespace ferry {

struct WorkloadInfo {
  std::string_view name;
  std::string_view summary;
  std::string_view measures;
};

const std::vector<WorkloadInfo>& workloads();
const WorkloadInfo* find_workload(std::string_view name);

}  // namespace ferry
