#pragma once
// The timing loops every workload uses: warm up, repeat, time each sample on
// the device (events) or from the host (steady clock), check each sample.
#include <functional>
#include <vector>

#include "backend/backend.hpp"
#include "core/results.hpp"

namespace ferry {

struct Repeat {
  int warmup = 2;
  int min_samples = 5;
  int max_samples = 50;
  double min_seconds = 0.05;  // keep sampling (up to max_samples) until this much time was measured
};

struct Trial {
  std::function<void()> prepare = {};         // before each sample, untimed: poison the outputs
  std::function<void(Stream&)> enqueue = {};  // the timed work
  std::function<bool()> check = {};           // after each sample, untimed: did every byte arrive? (may be empty)
  std::function<void()> corrupt = {};  // test hook: once, after the first timed sample's work and before its check
};

struct Measurement {
  std::vector<double> seconds;
  Check check = Check::not_applicable;
};

// Device interval: events recorded before and after the enqueued work.
Measurement time_on_device(Backend& backend, Stream& stream, const Repeat& repeat, const Trial& trial);

// Host view: steady clock from before the work is enqueued until stream sync returns.
Measurement time_on_host(Stream& stream, const Repeat& repeat, const Trial& trial);

// Work the host does itself, no device involved: steady clock around it.
struct HostTrial {
  std::function<void()> prepare = {};
  std::function<void()> work = {};
  std::function<bool()> check = {};
  std::function<void()> corrupt = {};
};
Measurement time_host_work(const Repeat& repeat, const HostTrial& trial);

// Work whose sample no single stream's events span (copies on two devices at
// once, each timed by its own stream's events): `time_one` runs one sample and
// returns its seconds; warm-up, repeats and checks as above.
struct CustomTrial {
  std::function<void()> prepare = {};
  std::function<double()> time_one = {};
  std::function<bool()> check = {};
  std::function<void()> corrupt = {};
};
Measurement time_custom(const Repeat& repeat, const CustomTrial& trial);

}  // namespace ferry
