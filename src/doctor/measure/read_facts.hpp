#pragma once
// The facts of the machine doctor's pass reads beside link's figures: the
// GPUs' state under load and when idle, where the process and the GPUs sit,
// and the variables that change data paths.
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "doctor/facts.hpp"

namespace ferry::doctor {

// The variables of path_variables() that are set; CUDA_VISIBLE_DEVICES only
// where it reorders the devices (its numbers are then not nvidia-smi's).
std::vector<std::pair<std::string, std::string>> read_environment();

// Where the process may run (sched_getaffinity, sysfs's NUMA nodes), where a
// pinned buffer of it lands (get_mempolicy), and each selected GPU's NUMA node.
Placement read_placement(Backend& backend, const Machine& machine, const std::vector<int>& devices);

// The selected GPUs' facts as read while each copies: an idle link drops its
// generation to save power, and a reading then would call a healthy link slow.
// Nothing on the emulator, which has no link.
void read_links_under_load(Backend& backend, const std::vector<int>& devices, Machine& machine);

// Each selected GPU's PCIe traffic once doctor's copies are done and nothing of
// its moves: what NVML counts then is someone else's. A GPU whose counters NVML
// does not give is left out.
std::vector<std::pair<int, PcieTraffic>> read_idle_pcie_traffic(Backend& backend, const std::vector<int>& devices);

}  // namespace ferry::doctor
