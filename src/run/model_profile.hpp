#pragma once
// Where a workload's model gets link's ceilings: a profile file the user named
// (`--profile`, read before anything runs), else `link` measured in this run.
#include <optional>
#include <string>

#include "backend/backend.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"
#include "run/dry_run.hpp"

namespace ferry {

class ModelProfile {
 public:
  // Reads the file now, so a bad path fails before the backend starts.
  explicit ModelProfile(const std::string& path);

  // The device's ceilings; measuring them adds link's rows to `results`.
  // Pageable copies are measured only for a workload that asks.
  model::DeviceProfile for_device(Backend& backend, Results& results, int device, bool quiet,
                                  bool with_pageable = false);
  const std::string& origin() const { return origin_; }
  // The profile file's contents; null when the ceilings are to be measured.
  const model::MachineProfile* file() const { return from_file_ ? &*from_file_ : nullptr; }

 private:
  std::string path_;
  std::optional<model::MachineProfile> from_file_;
  std::string origin_ = "measured by link in this run";
};

// --dry-run of a workload whose model reads `ceilings`: link's steps that
// for_device() would take (none when they come from a file), then the workload's.
int dry_run_with_ceilings(Backend& backend, const ModelProfile& ceilings, int device, bool with_pageable,
                          PlannedWorkload workload, std::ostream& out);

}  // namespace ferry
