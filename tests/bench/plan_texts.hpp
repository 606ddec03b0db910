#pragma once
// A plan's step texts, to hold a workload's plan to the steps its run reports.
#include <string>
#include <vector>

#include "bench/common/plan.hpp"

namespace ferry {

inline std::vector<std::string> texts(const Plan& plan) {
  std::vector<std::string> out;
  for (const PlannedStep& step : plan.steps) out.push_back(step.what);
  return out;
}

}  // namespace ferry
