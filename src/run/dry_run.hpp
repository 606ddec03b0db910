#pragma once
// `ferry run WORKLOAD --dry-run`: the steps a run would take and how long they
// would take, from the options alone. Nothing is allocated, copied, launched or
// written; the device is asked only for its properties.
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/plan.hpp"
#include "core/machine.hpp"
#include "model/profile.hpp"

namespace ferry {

struct PlannedWorkload {
  std::string workload;
  Plan plan;
  std::string caveat = {};  // what the plan cannot know ahead of the run
};

// The rates that price the steps: a machine profile's where one is given (for
// `device`); else, on a GPU, nominal ones from its properties (PCIe generation
// and width, memory bus, NVLinks); on the emulator, a copy the host times now.
Pace dry_run_pace(const Machine& machine, const model::MachineProfile* profile, int device);

// The steps, one line each with its estimate, what would be left out, and the
// total. Returns the exit code: 0.
int print_dry_run(const Machine& machine, const std::vector<PlannedWorkload>& workloads, const Pace& pace,
                  std::ostream& out);

}  // namespace ferry
