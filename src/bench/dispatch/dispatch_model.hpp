#pragma once
// What a rung should cost, from link's ceilings: its kernels times what
// launching one costs the way the rung launches it, and its grid (or
// cluster) barriers times one barrier's cost, plus the copies, plus the memory
// traffic of each kernel or stretch between barriers at the device's copy rate.
#include <cstdint>
#include <optional>
#include <string>

#include "bench/dispatch/dispatch_ladder.hpp"
#include "model/profile.hpp"

namespace ferry::dispatch {

struct RungModel {
  double dispatch_s = 0;
  double copies_s = 0;
  double compute_s = 0;
  std::string basis;
  double seconds() const { return dispatch_s + copies_s + compute_s; }
};

// Empty when the profile lacks a figure the rung needs (e.g. pageable rates).
std::optional<RungModel> model_rung(const RungPlan& plan, std::uint64_t keys, const Dispatches& dispatches,
                                    const model::DeviceProfile& profile);

}  // namespace ferry::dispatch
