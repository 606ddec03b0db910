#include "bench/common/plan.hpp"

#include <algorithm>
#include <cmath>

namespace ferry {
namespace {

double at(double bytes, double Bps) { return bytes > 0 && Bps > 0 ? bytes / Bps : 0; }

}  // namespace

double estimate_seconds(const PlannedStep& step, const Pace& pace) {
  const SampleWork& w = step.sample;
  // The timed part of a sample and the untimed checks around it; the repeat
  // rule counts only the timed part towards its minimum time.
  const double timed = std::max(w.at_least_s, at(w.link_bytes, pace.link_Bps) + at(w.device_bytes, pace.device_Bps) +
                                                  at(w.peer_bytes, pace.peer_Bps) + w.waits * pace.wait_s +
                                                  w.launches * pace.launch_s + w.handoffs * pace.handoff_s);
  const double untimed = at(w.host_bytes, pace.host_Bps);
  const Repeat& r = step.repeat;
  double samples = r.min_samples;
  if (timed > 0 && r.min_seconds > samples * timed)
    samples = std::min<double>(r.max_samples, std::ceil(r.min_seconds / timed));
  else if (timed == 0 && r.min_seconds > 0) samples = r.max_samples;
  return step.trials * (r.warmup + samples) * (timed + untimed) + at(step.setup_host_bytes, pace.host_Bps) +
         step.setup_s;
}

}  // namespace ferry
