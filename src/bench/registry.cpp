#include "bench/registry.hpp"

#include <algorithm>

namespace ferry {

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> all = {
      {"link", "the machine's ceilings, which every model builds on",
       "H2D/D2H/bidirectional bandwidth for pinned, pageable and mapped memory over a size sweep; zero-copy "
       "kernel reads and writes; small-copy latency; kernel launch, graph replay and stream-sync costs; "
       "persistent-kernel flag round trip; device copy bandwidth; peer bandwidth and latency per pair"},
  };
  return all;
}

const WorkloadInfo* find_workload(std::string_view name) {
  const auto& all = workloads();
  const auto it = std::find_if(all.begin(), all.end(), [&](const WorkloadInfo& w) { return w.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace ferry
