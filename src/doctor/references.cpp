#include "doctor/references.hpp"

#include <algorithm>

namespace ferry::doctor {

// Copied from the "median us" column of each run's dispatch, flag and
// copy_latency tables (the same figures as its .json.gz). Both runs are full
// `ferry run link` runs: 1000 kernels a dispatch sample, 10000 flag round trips.
const std::vector<LatencyReference>& latency_references() {
  static const std::vector<LatencyReference> all = {
      {.gpu = "NVIDIA H100 80GB HBM3",
       .short_name = "H100",
       .source = "docs/results/link-h100.txt",
       .machine = "one H100 on a 16-core Xeon VM, driver 580.159.04",
       .launch_and_sync_s = 10.42e-6,
       .launch_per_kernel_s = 4.479e-6,
       .graph_per_kernel_s = 0.968e-6,
       .flag_round_trip_s = 2.578e-6,
       .copy_latency_h2d_s = 6.570e-6,
       .copy_latency_d2h_s = 6.991e-6},
      {.gpu = "NVIDIA H200",
       .short_name = "H200",
       .source = "docs/results/link-h200x2.txt",
       .machine = "2 x H200 on a 32-core Xeon VM, driver 580.159.04; the slower GPU's figure",
       .launch_and_sync_s = 9.297e-6,
       .launch_per_kernel_s = 3.903e-6,
       .graph_per_kernel_s = 0.689e-6,
       .flag_round_trip_s = 3.274e-6,
       .copy_latency_h2d_s = 6.505e-6,
       .copy_latency_d2h_s = 8.087e-6},
  };
  return all;
}

const LatencyReference* latency_reference(std::string_view gpu) {
  const auto& all = latency_references();
  const auto it = std::find_if(all.begin(), all.end(), [&](const LatencyReference& r) { return r.gpu == gpu; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace ferry::doctor
