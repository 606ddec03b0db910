#pragma once
// Where a workload's model gets link's ceilings: a profile file the user named
// (`--profile`, read before anything runs), else `link` measured in this run.
#include <optional>
#include <string>

#include "backend/backend.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"

namespace ferry {

// One device's ceilings, and where they came from.
struct LinkCeilings {
  model::DeviceProfile device;
  std::string origin;  // "from the profile P.json" or "measured by link in this run"
};

class ModelProfile {
 public:
  // Reads the file now, so a bad path fails before the backend starts.
  explicit ModelProfile(const std::string& path);

  // The device's ceilings; measuring them adds link's rows to `results`.
  // Pageable copies are measured only for a workload that asks.
  LinkCeilings for_device(Backend& backend, Results& results, int device, bool quiet, bool with_pageable = false);
  // The profile file's contents; null when the ceilings are to be measured.
  const model::MachineProfile* file() const { return from_file_ ? &*from_file_ : nullptr; }

 private:
  std::string path_;
  std::optional<model::MachineProfile> from_file_;
  std::string origin_ = "measured by link in this run";
};

}  // namespace ferry
