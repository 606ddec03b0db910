#pragma once
// The workloads ferry can run, for `ferry list` and for naming errors. What
// each can run (stream's designs, dispatch's rungs, ...) is read from the
// workload's own tables, so the list cannot drift from the code.
#include <string>
#include <string_view>
#include <vector>

namespace ferry {

// One of a workload's tables, named as its option takes the names.
struct Listing {
  std::string what;                // "designs (--design)"
  std::vector<std::string> names;  // "offload", "chunked", ...
};

struct WorkloadInfo {
  std::string name;
  std::string summary;
  std::string measures;
  std::vector<Listing> lists;
};

const std::vector<WorkloadInfo>& workloads();
const WorkloadInfo* find_workload(std::string_view name);

}  // namespace ferry
