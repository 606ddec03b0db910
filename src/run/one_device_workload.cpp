#include "run/one_device_workload.hpp"

#include <vector>

#include "bench/link/link.hpp"
#include "run/dry_run.hpp"

namespace ferry {
namespace {

// link's steps that for_device() would take (none when the ceilings come from a file), then the workload's.
int print_dry_run_with_ceilings(const Driver& driver, const ModelProfile& profile, const OneDeviceWorkload& w,
                                std::ostream& out) {
  Backend& backend = driver.backend();
  PlannedWorkload workload{w.name, w.plan()};
  std::vector<PlannedWorkload> planned;
  if (!profile.file()) {
    const link::LinkConfig ceilings = link::LinkConfig::for_models(backend.capabilities(), w.device, w.with_pageable);
    planned.push_back({"link", link::plan_run(backend, ceilings)});
  }
  planned.push_back(std::move(workload));
  const Machine machine = backend.describe_machine();
  return print_dry_run(machine, planned, dry_run_pace(machine, profile.file(), w.device), out);
}

}  // namespace

int run_one_device_workload(const Driver& driver, const OneDeviceWorkload& w) {
  ModelProfile profile(w.profile_path);
  if (driver.options().dry_run) {
    w.validate();
    return driver.dry_run([&](std::ostream& out) { return print_dry_run_with_ceilings(driver, profile, w, out); });
  }
  Results results = driver.start();
  w.validate();
  const LinkCeilings ceilings =
      profile.for_device(driver.backend(), results, w.device, driver.options().quiet, w.with_pageable);
  WorkloadResult result = w.run(results.machine, ceilings, driver.progress(w.name));
  return driver.finish(results, std::move(result));
}

}  // namespace ferry
