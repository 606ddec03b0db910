#pragma once
// A workload of one process on one device whose model reads link's ceilings
// (stream, overlap, dispatch), as its declaration hands it to the driver: the
// ceilings come from --profile, else link measures them first in the same run.
#include <functional>
#include <string>

#include "bench/common/plan.hpp"
#include "core/machine.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "run/driver.hpp"
#include "run/model_profile.hpp"

namespace ferry {

struct OneDeviceWorkload {
  std::string name;  // "stream", "tune stream": its progress line and its part of a dry run
  int device = 0;
  std::string profile_path;    // --profile: the machine profile with link's ceilings ("": measure them)
  bool with_pageable = false;  // the model reads pageable copies too
  // Refuses (UsageError) what the device cannot run: before a dry run's steps; in a run, after the banner.
  std::function<void()> validate;
  std::function<Plan()> plan;  // the steps --dry-run lists
  std::function<WorkloadResult(const Machine& machine, const LinkCeilings& ceilings, const Progress& progress)> run;
};

// Reads the profile (a bad path fails before anything is printed); then the
// workload's dry run, or the banner, link's ceilings, its run and the finish:
// its tables, and the files --json and --csv name.
int run_one_device_workload(const Driver& driver, const OneDeviceWorkload& workload);

}  // namespace ferry
