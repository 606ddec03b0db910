// The steps `ferry run dispatch` takes, for its progress line and --dry-run.
#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "bench/dispatch/dispatch.hpp"

namespace ferry::dispatch {

Repeat sort_repeat(int iterations) {
  return {.warmup = 3, .min_samples = iterations, .max_samples = iterations, .min_seconds = 0};
}

Plan plan_run(const DispatchConfig& config, const Capabilities& capabilities, const DeviceFeatures& features) {
  const Repeat repeat = sort_repeat(config.iterations);
  Plan p;
  for (const std::uint64_t keys : config.keys) {
    const double bytes = 4.0 * static_cast<double>(keys);
    const double stages = std::bit_width(keys) - 1.0;
    const double passes = stages * (stages + 1) / 2;
    // Each sample draws fresh keys, poisons the output and, for a sort, checks it against std::sort's.
    const SampleWork copies{.link_bytes = 2 * bytes, .device_bytes = bytes, .host_bytes = 3 * bytes, .waits = 2};
    for (MemoryKind host : {MemoryKind::pageable, MemoryKind::pinned})
      if (config.uses(host))
        p.steps.push_back({.what = fmt::format("{} keys: {} copies alone", keys, to_string(host)),
                           .repeat = repeat,
                           .sample = copies});
    for (const Rung rung : config.rungs) {
      const RungPlan& r = plan(rung);
      if (const std::string why = unavailable_reason(rung, keys, config.tile, capabilities, features); !why.empty()) {
        p.skipped.push_back(fmt::format("{} keys, {}: {}", keys, r.name, why));
        continue;
      }
      SampleWork sort = copies;
      // The copy-free rungs' keys cross the link all the same, read and written by kernels: no copy to wait for.
      if (r.zero_copy) sort.waits = 0;
      // The reference sort, std::sort on one core: like copying its keys about 30 times a level on all
      // cores (2 ms for 32768 keys on an H100's host).
      sort.host_bytes += 30 * bytes * stages;
      sort.device_bytes += 2 * bytes * passes;
      sort.waits += r.one_kernel() ? 1 : passes;  // the upper rungs launch fewer: an estimate errs long
      p.steps.push_back(
          {.what = fmt::format("{} keys, {}: {}", keys, r.name, r.change), .repeat = repeat, .sample = sort});
    }
  }
  return p;
}

}  // namespace ferry::dispatch
