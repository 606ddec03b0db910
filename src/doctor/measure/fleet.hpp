#pragma once
// `ferry doctor` under mpirun (fleet mode): each rank's pass on its own GPU,
// the mpi-staged path between neighbouring ranks one pair at a time, then
// through NCCL, and rank 0 gathering it all for doctor/judge/fleet.hpp to judge.
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "doctor/finding.hpp"
#include "doctor/fleet_facts.hpp"
#include "transport/world.hpp"

namespace ferry::doctor {

// What rank 0 gathered; empty on the other ranks.
struct Fleet {
  FleetInputs inputs;
  std::vector<Finding> findings;  // the fleet's own (judge_fleet)
};

// Every rank calls it with its device. The ranks of a host take turns (they
// share its memory and PCIe switches, so at once each would measure the
// others), the hosts at once; then each pair of neighbours in turn.
Fleet run_fleet(Backend& backend, World& world, const Machine& machine, int device, std::string_view fault, bool quiet);

}  // namespace ferry::doctor
