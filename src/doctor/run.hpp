#pragma once
// `ferry doctor` as the driver (run/driver.hpp) runs it: the pass on this
// process's GPUs; under mpirun (fleet mode) every rank's pass on its own GPU
// and the pairs between them, rank 0 speaking for the fleet. The exit code is
// 1 when any finding is FAIL, else 0, on every rank.
#include <chrono>

#include "run/driver.hpp"

namespace ferry::doctor {

struct Budget {
  double seconds = 0;                             // --budget: longer is a WARN (judge/pass_time.hpp)
  std::chrono::steady_clock::time_point started;  // the command's start, before the backend's
};

int run(const Driver& driver, const Budget& budget);

}  // namespace ferry::doctor
