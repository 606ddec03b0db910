#pragma once
// Every number that decides one of `ferry doctor`'s verdicts, each with the
// measured figure that set it (the runs are in docs/results). docs/doctor.md's
// tables state them, and tests/doctor/thresholds_test.cpp fails where a table
// and this file differ.
#include <cstddef>

namespace ferry::doctor {

// Shares of a model below which a figure is WARN, then FAIL.
struct Threshold {
  double warn_below = 0;
  double fail_below = 0;
};

// Multiples of a reference above which a figure is WARN, then FAIL.
struct LatencyLimit {
  double warn_above = 0;
  double fail_above = 0;
};

// Rates against what the machine's facts allow. Each sits below the figure a
// healthy machine reached, far enough that run-to-run spread never crosses it.
inline constexpr Threshold pinned_vs_pcie{0.75, 0.60};      // healthy H100: 85-87% of Gen5 x16 (link-h100.txt)
inline constexpr Threshold both_ways_vs_pcie{0.60, 0.45};   // healthy H100: 72% of both directions of Gen5 x16
inline constexpr Threshold device_copy_vs_hbm{0.70, 0.50};  // healthy H100: 89% of half the HBM rate
inline constexpr Threshold peer_vs_link{0.70, 0.50};        // healthy H200 pair: 87% of 18 x NVLink4

// Pageable copies against pinned ones of the same GPU, WARN below: the driver
// stages pageable memory through pinned buffers, and the host's memory copy
// sets the share. A healthy 2 x H200 host gave 12-26% over 13 readings; a
// first threshold of 20% warned on half of them.
inline constexpr double pageable_vs_pinned = 0.08;

// A GPU or pair below this share of the median of its like is named FAIL: the
// selected GPUs of its model, the pairs with as many NVLinks, and in fleet mode
// the fleet's GPUs of one model. A healthy 4 x H200 fleet's ranks were each
// within 2% of its median (doctor-fleet-h200x4.txt); the case users bring is
// one GPU of eight at a quarter of the others.
inline constexpr double like_median_share = 0.85;
// The fewest like GPUs or pairs whose median is judged: the median of two is
// their mean, which a slow one drags down with it, so neither can be named.
inline constexpr std::size_t fewest_like = 3;

// A pair's slower direction below this share of its faster one is WARN. The two
// directions of a healthy 2 x H200 pair moved 379.5 and 380.8 GB/s.
inline constexpr double asymmetry_share = 0.85;

// PCIe traffic either way above this while doctor moves nothing is someone's
// copy: an idle H100 read 0-2 MB/s each way, one copying read 59 GB/s, and a
// copy's 20 ms window at GB/s clears it even in a burst. It is 1.6% of Gen5
// x16: too little to move a figure past its threshold alone, enough to say the
// link was not doctor's alone.
inline constexpr double idle_pcie_traffic_Bps = 1e9;

// Latencies against a healthy GPU of the same model (references.cpp). A latency
// is a few microseconds of mostly the host's work (a launch is a call into the
// driver and a doorbell write, a sync a wait), so it is noisier than a rate,
// and a loaded or power-saving host adds microseconds no GPU fact explains. Two
// passes on the same 2 x H200 host differed by up to 1.16x (stream launch per
// kernel, and the 4-byte d2h copy), the two shipped hosts by up to 1.40x (graph
// per kernel, 0.968 against 0.689 us): OK up to 1.5x holds both. Past 3x, twice
// what another healthy host gave, something on this one is wrong: a CPU held at
// a low clock by power saving, or busy with other work.
inline constexpr LatencyLimit latency_vs_reference{1.5, 3.0};

// NCCL's b(2 MiB) on a pair below this share of p2p-ce's is WARN. In
// docs/results/beff-h200x2.txt (2 x H200, NVLink4, NCCL 2.28.3) the ring of 2 at
// 2 MiB, best of 10 repetitions, moved 326.2 GB/s through p2p-ce and 199.7
// through nccl issued from the host, as doctor issues it: 0.61x, its slowest
// repetition 0.60x. NCCL spreads wider on some runs: in an older run on the same
// kind of machine its slowest repetition gave 109.2 GB/s, 0.32x of p2p-ce's
// best. 0.30x is half the healthy share and under even that slowest
// repetition, while doctor takes a median of 5. The check itself gave
// 0.57-0.59x over the 6 pairs of 4 x H100, and through host memory
// (NCCL_P2P_DISABLE=1) 0.13x on 4 x H200 (40.7 of 313.5 GB/s).
inline constexpr double nccl_vs_p2p_ce = 0.30;

// Fleet mode on the emulator: the ranks take turns on one CPU, whose timings of
// one copy varied 2.5x between turns, while the geometric mean of a rank's four
// figures fell to 72% of the fleet's median at worst over 6 runs of 4 ranks.
// That mean is judged there, and a rank below half the median named.
inline constexpr double fleet_emulator_share = 0.5;

// Pairs of ranks between hosts: the slowest is WARN below this share of their
// median. The network between hosts has no measured spread in docs/results, so
// the margin is as wide as that of pairs within a healthy 4 x H200 host, whose
// slowest moved 72% of the fastest's rate (5.0 and 6.9 GB/s).
inline constexpr double pair_between_hosts_share = 0.70;

// The pass's time, WARN past it (`--budget` sets another). Passes took 8.7 s on
// 2 x H200, 23.4 s on 4 x H100 with its 6 pairs through NCCL, and 20.1 s in
// fleet mode on 4 x H200.
inline constexpr double pass_time_budget_s = 60;

}  // namespace ferry::doctor
