#pragma once
// Where a workload's model gets link's ceilings: a profile file the user named
// (`--profile`, read before anything runs), else `link` measured in this run.
#include <optional>
#include <string>

#include "backend/backend.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"

namespace ferry {

class ModelProfile {
 public:
  // Reads the file now, so a bad path fails before the backend starts.
  explicit ModelProfile(const std::string& path);

  // The device's ceilings; measuring them adds link's rows to `results`.
  // Pageable copies are measured only for a workload that asks.
  model::DeviceProfile for_device(Backend& backend, Results& results, int device, bool quiet, bool with_pageable = false);
  const std::string& origin() const { return origin_; }

 private:
  std::string path_;
  std::optional<model::MachineProfile> from_file_;
  std::string origin_ = "measured by link in this run";
};

}  // namespace ferry
