#include "bench/common/measure.hpp"

#include "core/clock.hpp"

namespace ferry {
namespace {

template <class AnyTrial, class TimeOne>
Measurement repeat_trial(const Repeat& repeat, const AnyTrial& trial, TimeOne time_one) {
  for (int i = 0; i < repeat.warmup; ++i) {
    if (trial.prepare) trial.prepare();
    time_one();
  }
  Measurement m;
  bool all_passed = true;
  double measured = 0;
  while (static_cast<int>(m.seconds.size()) < repeat.min_samples ||
         (measured < repeat.min_seconds && static_cast<int>(m.seconds.size()) < repeat.max_samples)) {
    if (trial.prepare) trial.prepare();
    const double seconds = time_one();
    m.seconds.push_back(seconds);
    measured += seconds;
    if (trial.corrupt && m.seconds.size() == 1) trial.corrupt();
    if (trial.check) all_passed = trial.check() && all_passed;
  }
  m.check = !trial.check ? Check::not_applicable : all_passed ? Check::passed : Check::failed;
  return m;
}

}  // namespace

Measurement time_on_device(Backend& backend, Stream& stream, const Repeat& repeat, const Trial& trial) {
  const auto start = backend.make_event(stream.device());
  const auto end = backend.make_event(stream.device());
  return repeat_trial(repeat, trial, [&] {
    stream.record(*start);
    trial.enqueue(stream);
    stream.record(*end);
    end->synchronize();
    return end->seconds_since(*start);
  });
}

Measurement time_on_host(Stream& stream, const Repeat& repeat, const Trial& trial) {
  return repeat_trial(repeat, trial, [&] {
    const auto start = HostClock::now();
    trial.enqueue(stream);
    stream.synchronize();
    return seconds_between(start, HostClock::now());
  });
}

Measurement time_host_work(const Repeat& repeat, const HostTrial& trial) {
  return repeat_trial(repeat, trial, [&] {
    const auto start = HostClock::now();
    trial.work();
    return seconds_between(start, HostClock::now());
  });
}

Measurement time_custom(const Repeat& repeat, const CustomTrial& trial) {
  return repeat_trial(repeat, trial, trial.time_one);
}

}  // namespace ferry
