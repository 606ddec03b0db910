#pragma once
// `ferry run link`: the machine's ceilings, which every other model builds on.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/measure.hpp"
#include "bench/common/plan.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"

namespace ferry::link {

struct LinkConfig {
  std::vector<int> devices{0};
  std::vector<std::uint64_t> sweep_bytes;  // host <-> device bandwidth sizes
  std::vector<MemoryKind> host_memory{MemoryKind::pinned, MemoryKind::pageable, MemoryKind::mapped};
  std::vector<std::uint64_t> latency_bytes;      // small copies
  std::vector<std::uint64_t> queued_copy_bytes;  // copies queued back to back, per size
  std::uint64_t queued_batch_bytes = 0;          // the bytes of one such batch, at most 1024 copies
  std::vector<int> loaded_teams;                 // teams streaming both ways while a read is timed
  std::uint64_t loaded_bytes = 0;                // each way, per pass of those teams
  std::uint64_t device_copy_bytes = 0;
  std::uint64_t peer_bytes = 0;
  int kernels_per_sample = 1000;  // launch-rate and graph samples
  // What each kernel of the dependent chains reads and writes: the 32768 keys
  // of `ferry run dispatch`, whose passes such a chain prices.
  std::uint64_t dependent_kernel_bytes = 128 << 10;
  int flag_round_trips = 10000;
  int graph_round_trips = 1000;  // launches of the graph that stands for a stream chunk
  Repeat bandwidth_repeat;
  Repeat latency_repeat;
  Repeat dispatch_repeat;
  bool per_device = true;  // false: the peer figures alone
  // Test hook (FERRY_FAULT_CORRUPT_OUTPUT=SECTION[@N], docs/reliability.md):
  // the Nth checked row of this section (default the first) checks wrong data
  // in its first timed sample.
  std::string corrupt_section;
  int corrupt_row = 1;

  // What a run does without options: large sweeps on a GPU, smaller ones on
  // the emulator (its copies are CPU memcpy), smaller again with --quick.
  static LinkConfig defaults(const Capabilities& capabilities, bool quick);
  // The figures another workload's model reads, for one device, in seconds:
  // pinned and mapped rates at the sizes where they plateau (pageable too
  // when asked), latencies, flags.
  static LinkConfig for_models(const Capabilities& capabilities, int device, bool with_pageable = false);
  // Peer copies between every pair of `devices`, large ones as a full run measures them, small ones as
  // --quick does, and the peer flag: what beff's p2p-ce and p2p-sm models read.
  static LinkConfig for_peers(const Capabilities& capabilities, const std::vector<int>& devices);
};

struct LinkOutcome {
  WorkloadResult result;
  model::MachineProfile profile;
};

// Every section of link's results, each a table of its own: what `ferry list` names.
const std::vector<Section>& sections();

// The sections of link's table whose rows are checked: what corrupt_section may name.
extern const std::vector<std::string> checked_sections;
// "dispatch@2" into corrupt_section and corrupt_row; UsageError naming the variable when N is not a count.
void parse_corruption(std::string_view text, LinkConfig& config);

// Throws UsageError when the config asks for what the backend cannot give
// (a device that does not exist, more memory than a device has free), or
// corrupt_section names no checked section this run measures.
void validate(Backend& backend, const LinkConfig& config);

// The steps run() takes, each with its work, before anything is allocated.
// `features` and `resident_teams` (how many of the loaded-link kernel's teams
// the device holds at once) are asked of a device only where a step needs them.
Plan plan_run(const LinkConfig& config, const Capabilities& capabilities,
              const std::function<DeviceFeatures(int)>& features, const std::function<int(int)>& resident_teams);
// The same, asking `backend` (a stream per device for the occupancy query).
Plan plan_run(Backend& backend, const LinkConfig& config);

// What the release fence adds to the persistent kernel's echo, from the two
// round trips' medians, for the fenced row's note. Two medians of a noisy host
// clock: a fenced echo no slower than the plain one shows no cost to measure.
std::string fence_cost_note(double plain_s, double fenced_s);

// `machine` is the backend's description (Backend::describe_machine), taken once by the caller.
LinkOutcome run(Backend& backend, const Machine& machine, const LinkConfig& config, const Progress& progress);

}  // namespace ferry::link
