#pragma once
// Healthy machines and fleets described in numbers, as doctor's judgments take
// them: each doctor test changes what its case needs and leaves the rest healthy.
#include <string>

#include "doctor/facts.hpp"
#include "doctor/fleet_facts.hpp"

namespace ferry::doctor::test_inputs {

// `gpus` GPUs as an H100 SXM reads (Gen5 x16, 18 NVLinks, 3352 GB/s HBM), every
// pair linked by 18 NVLinks, with the figures of docs/results/link-h100.txt.
inline Inputs healthy(int gpus) {
  constexpr double GB = 1e9;
  Inputs in;
  in.checked_rows = 40;
  in.figures.gpu_timings = true;
  for (int d = 0; d < gpus; ++d) {
    in.devices.push_back(d);
    GpuFacts g{.index = d, .name = "NVIDIA H100 80GB HBM3", .memory_bandwidth_Bps = 3352 * GB};
    g.pcie = {5, 16, 5, 16, "nvml"};
    g.nvlinks = 18;
    g.other_processes = 0;
    g.persistence_mode = true;
    g.mig_mode = false;
    g.compute_mode = ComputeMode::shared;
    g.clock_events = clock_event::gpu_idle;  // between copies: no fault
    in.machine.gpus.push_back(g);
    in.idle_pcie_traffic.emplace_back(d, PcieTraffic{.rx_Bps = 0.002 * GB, .tx_Bps = 0.001 * GB});
    model::DeviceProfile p{.device = d, .name = g.name};
    p.h2d_Bps = 53.5 * GB;
    p.d2h_Bps = 54.7 * GB;
    p.bidirectional_Bps = 91.0 * GB;
    p.pageable_h2d_Bps = 20 * GB;
    p.pageable_d2h_Bps = 18 * GB;
    p.device_copy_Bps = 1486 * GB;
    in.figures.devices.push_back(p);
  }
  for (int a = 0; a < gpus; ++a)
    for (int b = 0; b < gpus; ++b)
      if (a != b) {
        in.machine.peers.push_back(
            {.from = a, .to = b, .direct_access = true, .nvlinks = 18, .nvlink_version = 4, .nvlink_source = "nvml"});
        in.figures.peers.push_back({.from = a, .to = b, .direct_access = true, .copy_Bps = 390 * GB});
      }
  in.placement.process_nodes = {0, 1};
  for (int d = 0; d < gpus; ++d) in.placement.device_nodes.emplace_back(d, d % 2);
  for (int cpu = 0; cpu < 64; ++cpu) in.placement.process_cpus.push_back(cpu);
  for (GpuFacts& g : in.machine.gpus)  // node 0's CPUs are 0-31, node 1's 32-63
    for (int cpu = 32 * (g.index % 2); cpu < 32 * (g.index % 2 + 1); ++cpu) g.near_cpus.push_back(cpu);
  in.placement.pinned_node = 0;
  return in;
}

// `ranks` H100s, `per_host` a host, with docs/results/link-h100.txt's figures,
// and the ring's pairs at 20 GB/s within a host and 12 GB/s between hosts.
inline FleetInputs healthy_fleet(int ranks, int per_host = 2) {
  constexpr double GB = 1e9;
  FleetInputs in{.pair_bytes = 64ull << 20, .gpu_timings = true};
  for (int r = 0; r < ranks; ++r)
    in.ranks.push_back({.rank = r,
                        .host = "node" + std::to_string(r / per_host),
                        .device = r % per_host,
                        .gpu = "NVIDIA H100 80GB HBM3",
                        .h2d_Bps = 53.5 * GB + r * 0.1 * GB,
                        .d2h_Bps = 54.7 * GB,
                        .both_ways_Bps = 91.0 * GB,
                        .device_copy_Bps = 1486 * GB});
  for (int r = 0; r < ranks; ++r) {
    PairTiming p{.from = r, .to = (r + 1) % ranks, .intact = true};
    p.from_host = in.ranks[p.from].host;
    p.to_host = in.ranks[p.to].host;
    const double rate = p.from_host == p.to_host ? 20 * GB : 12 * GB;
    p.seconds = {in.pair_bytes / rate, in.pair_bytes / rate * 1.01, in.pair_bytes / rate * 0.99};
    in.pairs.push_back(p);
  }
  return in;
}

}  // namespace ferry::doctor::test_inputs
