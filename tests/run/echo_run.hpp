#pragma once
// What the driver's tests hand it: the options of a quiet run on the emulator,
// and the one-row result of a toy workload, "echo", that moved 1 KiB.
#include "core/results.hpp"
#include "run/run_options.hpp"

namespace ferry::echo_run {

inline RunOptions on_the_emulator(bool dry_run = false) {
  RunOptions options;
  options.backend = "emu";
  options.quiet = true;
  options.dry_run = dry_run;
  return options;
}

inline WorkloadResult one_row(Check check = Check::passed) {
  WorkloadResult result{.workload = "echo", .sections = {{"echo", "echo"}}};
  Row row{.section = "echo", .params = {{"bytes", std::int64_t{1024}}}, .check = check};
  row.set_samples({1e-6, 2e-6, 3e-6});
  result.rows.push_back(std::move(row));
  return result;
}

}  // namespace ferry::echo_run
