// The steps `ferry run overlap` takes, for its progress line and --dry-run.
#include <fmt/format.h>

#include <set>

#include "bench/overlap/overlap.hpp"
#include "bench/overlap/overlap_split.hpp"
#include "core/units.hpp"

namespace ferry::overlap {

Plan plan_run(const OverlapConfig& config) {
  const double v = static_cast<double>(config.vector_bytes());
  const Repeat once_per_iteration{.warmup = 1, .min_samples = config.iterations, .max_samples = config.iterations};
  // Every sample poisons c on the host and a, b, c on the device, and checks c against a + b.
  const double checked = 4 * v;
  Plan p;
  p.steps.push_back({.what = fmt::format("filling a and b ({} each)", format_bytes(config.vector_bytes())),
                     .repeat = {0, 0, 0, 0},
                     .setup_host_bytes = 2 * v});
  p.steps.push_back({.what = "the add alone",
                     .repeat = {.warmup = 2, .min_samples = config.iterations, .max_samples = 50, .min_seconds = 0.05},
                     .sample = {.device_bytes = 3 * v, .host_bytes = checked, .waits = 1},
                     .setup_host_bytes = 2 * v});
  p.steps.push_back({.what = "cpu: the host adds the vectors on all cores",
                     .repeat = once_per_iteration,
                     .sample = {.host_bytes = 3 * v + checked}});
  const SampleWork chain{.link_bytes = 3 * v, .device_bytes = 6 * v, .host_bytes = checked, .waits = 4};
  p.steps.push_back({.what = "serial: H2D a and b, add, D2H c", .repeat = once_per_iteration, .sample = chain});
  std::set<std::size_t> seen;  // splits that give the same sub-buffers are measured once
  std::size_t best_parts = 0;
  for (int k : config.splits) {
    const Split split = split_vector(config.elements, k, config.min_split_bytes);
    if (!seen.insert(split.parts.size()).second) continue;
    SampleWork pipelined = chain;
    pipelined.waits = 4.0 * static_cast<double>(split.parts.size());
    p.steps.push_back({.what = fmt::format("pipelined, k = {}: {} sub-buffers of {}", k, split.parts.size(),
                                           format_bytes(split.parts.front().count * 4)),
                       .repeat = once_per_iteration,
                       .sample = pipelined});
    best_parts = split.parts.size();
  }
  if (config.want_trace)  // the k is the best one measured, known only then
    p.steps.push_back({.what = "trace: one more pipelined run at the best k, an event around every step",
                       .repeat = {0, 1, 1, 0},
                       .sample = {.link_bytes = 3 * v,
                                  .device_bytes = 6 * v,
                                  .host_bytes = checked,
                                  .waits = 6.0 * static_cast<double>(best_parts)}});
  return p;
}

}  // namespace ferry::overlap
