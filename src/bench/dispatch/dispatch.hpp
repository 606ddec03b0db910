#pragma once
// `ferry run dispatch`: a bitonic sort of many small dependent kernels, timed
// down a ladder of dispatch optimizations, each rung beside its model.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "bench/dispatch/dispatch_ladder.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"

namespace ferry::dispatch {

struct DispatchConfig {
  int device = 0;
  std::vector<std::uint64_t> keys = {32768};  // key counts to sort, each a power of two
  std::vector<Rung> rungs{std::begin(ladder), std::end(ladder)};
  int iterations = 25;                        // timed runs per rung, after a warm-up
  std::string profile_origin = "measured by link in this run";

  static DispatchConfig defaults(bool quick);
  bool uses(MemoryKind host) const;  // does any selected rung copy through this host memory?
};

// Throws UsageError for what the device or the host cannot give.
void validate(Backend& backend, const DispatchConfig& config);

WorkloadResult run(Backend& backend, const DispatchConfig& config, const model::DeviceProfile& profile,
                   const Progress& progress);

}  // namespace ferry::dispatch
