#include "run/model_profile.hpp"

#include <fmt/format.h>

#include "bench/link/link.hpp"
#include "core/progress.hpp"

namespace ferry {

ModelProfile::ModelProfile(const std::string& path) : path_(path) {
  if (path.empty()) return;
  from_file_ = model::read_profile(path);
  origin_ = fmt::format("from the profile {}", path);
}

model::DeviceProfile ModelProfile::for_device(Backend& backend, Results& results, int device, bool quiet,
                                              bool with_pageable) {
  if (from_file_) return from_file_->device(device);
  link::LinkOutcome link =
      link::run(backend, results.machine, link::LinkConfig::for_models(backend.capabilities(), device, with_pageable),
                Progress("link", !quiet));
  model::DeviceProfile profile = link.profile.device(device);
  results.workloads.push_back(std::move(link.result));
  return profile;
}

int dry_run_with_ceilings(Backend& backend, const ModelProfile& ceilings, int device, bool with_pageable,
                          PlannedWorkload workload, std::ostream& out) {
  std::vector<PlannedWorkload> planned;
  if (!ceilings.file())
    planned.push_back(
        {"link", link::plan_run(backend, link::LinkConfig::for_models(backend.capabilities(), device, with_pageable))});
  planned.push_back(std::move(workload));
  const Machine machine = backend.describe_machine();
  return print_dry_run(machine, planned, dry_run_pace(machine, ceilings.file(), device), out);
}

}  // namespace ferry
