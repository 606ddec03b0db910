#pragma once
// `ferry doctor` as the driver (run/driver.hpp) runs it: the pass on this
// process's GPUs; under mpirun (fleet mode) every rank's pass on its own GPU
// and the pairs between them, rank 0 speaking for the fleet. The exit code is
// 1 when any finding is FAIL, else 0, on every rank.
#include <chrono>
#include <ostream>
#include <string>

#include "run/driver.hpp"

namespace ferry::doctor {

struct Budget {
  double seconds = 0;                             // --budget: longer is a WARN (judge/pass_time.hpp)
  std::chrono::steady_clock::time_point started;  // the command's start, before the backend's
};

// Where doctor's answer goes besides its table and --json: the places operators look.
struct Integrations {
  std::ostream* verdict_line = nullptr;  // --quiet: report.hpp's verdict_line goes here, and nothing else is printed
  std::string prometheus_path{};         // --prometheus: node_exporter's textfile (doctor/prometheus.hpp)
  std::string baseline_path{};           // --baseline: this node's earlier run (doctor/baseline.hpp)
  double baseline_margin = 0.1;          // --baseline-margin: a figure this share worse is a WARN
  std::string save_baseline_path{};      // --save-baseline: this run's results, written only when nothing FAILs
  bool of_one_node() const { return !prometheus_path.empty() || !baseline_path.empty() || !save_baseline_path.empty(); }
};

int run(const Driver& driver, const Budget& budget, const Integrations& integrations);

}  // namespace ferry::doctor
