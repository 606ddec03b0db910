#pragma once
// The fleet's judgments (fleet mode, under mpirun): every rank's figures
// against the fleet's GPUs of its model, and the pairs of neighbouring ranks.
// Pure: doctor/measure/fleet.cpp gathers the inputs.
#include <vector>

#include "doctor/finding.hpp"
#include "doctor/fleet_facts.hpp"

namespace ferry::doctor {

// The figures against the fleet (per figure and GPU model: the lowest rank,
// or each rank below its share), the pairs' verification, and the slowest
// pair within a host and between hosts.
std::vector<Finding> judge_fleet(const FleetInputs& in);

}  // namespace ferry::doctor
