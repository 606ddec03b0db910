#pragma once
// `ferry doctor` under mpirun (fleet mode): each rank's pass on its own GPU,
// the mpi-staged path between neighbouring ranks one pair at a time, and rank 0
// gathering it all for doctor/fleet_checks.hpp to judge.
#include <string>
#include <string_view>

#include "backend/backend.hpp"
#include "doctor/fleet_checks.hpp"
#include "transport/world.hpp"

namespace ferry::doctor {

// The hook's fleet conditions (FERRY_FAULT_DOCTOR): slow-rank=R (rank R's
// figures at a quarter) and corrupt-pair=R (one byte changed in what rank R
// received, through MPI and through NCCL); -1 where not given.
struct FleetFaults {
  int slow_rank = -1;
  int corrupt_pair = -1;
  bool any() const { return slow_rank >= 0 || corrupt_pair >= 0; }
};
// Takes the fleet's conditions out of `hook`, leaving the others there for the pass.
FleetFaults take_fleet_faults(std::string& hook);

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
