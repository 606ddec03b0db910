// The steps `ferry run beff` takes, for its progress line and --dry-run.
#include <fmt/format.h>

#include "bench/beff/beff.hpp"
#include "core/units.hpp"

namespace ferry::beff {

Plan plan_run(const BeffConfig& config, int participants) {
  // Each measurement is calibrated to last --min-time (the calibration costs about
  // one more); around it the sending areas are filled and what arrived is checked.
  const Repeat repeat{.warmup = 1, .min_samples = config.repetitions, .max_samples = config.repetitions};
  // A ring exchange: every participant sends a message right while it receives one from the left.
  auto exchange = [&](std::uint64_t bytes) {
    const double moved = static_cast<double>(bytes) * participants;
    return SampleWork{.peer_bytes = moved, .host_bytes = 2 * moved, .waits = 1, .at_least_s = config.min_time_s};
  };
  const std::vector<std::uint64_t> ring_sizes = config.sizes();
  Plan p;
  for (transport::Kind kind : config.transports) {
    const std::string name(to_string(kind));
    p.steps.push_back({.what = fmt::format("{}: opening", name), .repeat = {0, 0, 0, 0}, .setup_s = 0.05});
    p.steps.push_back({.what = fmt::format("{}: ping-pong of {}", name, format_bytes(config.latency_bytes)),
                       .repeat = repeat,
                       .sample = exchange(config.latency_bytes)});
    for (std::size_t k = 0; k < ring_sizes.size(); ++k)
      p.steps.push_back({.what = fmt::format("{}: ring, {} (size {} of {})", name, format_bytes(ring_sizes[k]), k + 1,
                                             ring_sizes.size()),
                         .repeat = repeat,
                         .sample = exchange(ring_sizes[k])});
  }
  return p;
}

}  // namespace ferry::beff
