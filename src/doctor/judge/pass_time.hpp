#pragma once
// doctor's judgment of its own pass: how long it took against the budget
// (`--budget`, default pass_time_budget_s of doctor/thresholds.hpp).
#include "doctor/finding.hpp"

namespace ferry::doctor {

// "pass time" of the host: OK within the budget, WARN past it.
Finding judge_pass_time(double took_s, double budget_s);

}  // namespace ferry::doctor
