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

LinkCeilings ModelProfile::for_device(Backend& backend, Results& results, int device, bool quiet, bool with_pageable) {
  if (from_file_) return {from_file_->device(device), origin_};
  link::LinkOutcome link =
      link::run(backend, results.machine, link::LinkConfig::for_models(backend.capabilities(), device, with_pageable),
                Progress("link", !quiet));
  model::DeviceProfile profile = link.profile.device(device);
  results.workloads.push_back(std::move(link.result));
  return {profile, origin_};
}

}  // namespace ferry
