#pragma once
// What `ferry doctor` under mpirun (fleet mode) prints and writes: rank 0
// speaking for every rank.
#include <string>
#include <vector>

#include "doctor/finding.hpp"
#include "doctor/fleet_facts.hpp"

namespace ferry::doctor {

// A row per host and GPU (rank, model, figures, its own verdicts), the pairs,
// then the fleet's findings with every rank's findings that are not OK, each
// under the name "host (rank r)", with causes below.
std::string render_fleet(const FleetInputs& in, const std::vector<Finding>& fleet);

// Every finding of the run for the results: the fleet's, then each rank's with
// its subject prefixed by where it ran.
std::vector<Finding> all_findings(const FleetInputs& in, const std::vector<Finding>& fleet);

}  // namespace ferry::doctor
