#pragma once
#include "core/machine.hpp"

namespace ferry::cuda {

// Fills what NVML knows about the GPUs already in `machine` (found by PCI bus
// id): the driver version, PCIe generation and width, NVLinks between pairs,
// other processes, persistence, MIG and compute modes, clock event reasons and
// the PCIe traffic counters. A call that fails leaves its fact unknown.
// NVML is opened at run time; where it is missing, PCIe facts come from sysfs.
void add_link_facts(Machine& machine);

}  // namespace ferry::cuda
