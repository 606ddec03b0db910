#pragma once
// `ferry run dispatch`: a bitonic sort of many small dependent kernels, timed
// down a ladder of dispatch optimizations, each rung beside its model.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/plan.hpp"
#include "bench/dispatch/dispatch_ladder.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"

namespace ferry::dispatch {

struct DispatchConfig {
  int device = 0;
  std::vector<std::uint64_t> keys = {32768};  // key counts to sort, each a power of two
  std::vector<Rung> rungs{std::begin(ladder), std::end(ladder)};
  // Keys a team holds on chip in the fused rungs (a thread per 8). On H100 at
  // 32768 keys, tiles of 512 and 1024 sorted fastest (32-33 us a sort), 2048
  // took 37 and 4096 50: a larger tile puts more of the on-chip work on each
  // of fewer multiprocessors. Larger key counts favour larger tiles (fewer
  // sweeps of device memory); --tile chooses.
  std::uint64_t tile = 1024;
  int iterations = 25;                        // timed runs per rung, after a warm-up
  std::string profile_origin = "measured by link in this run";

  static DispatchConfig defaults(bool quick);
  bool uses(MemoryKind host) const;  // does any selected rung copy through this host memory?
};

// Throws UsageError for what the device or the host cannot give.
void validate(Backend& backend, const DispatchConfig& config);

// The steps run() takes, each with its work, before anything is allocated;
// the rungs the device cannot run are in `skipped`.
Plan plan_run(const DispatchConfig& config, const Capabilities& capabilities, const DeviceFeatures& features);

WorkloadResult run(Backend& backend, const DispatchConfig& config, const model::DeviceProfile& profile,
                   const Progress& progress);

}  // namespace ferry::dispatch
