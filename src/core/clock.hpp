#pragma once
// Host-observed time: the steady clock, in seconds as double.
#include <chrono>

namespace ferry {

using HostClock = std::chrono::steady_clock;

inline double seconds_between(HostClock::time_point start, HostClock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace ferry
