// The steps `ferry run link` takes, for its progress line and --dry-run. The
// conditions mirror the measuring functions' (link_*.cpp); the tests hold the
// two to the same steps on the emulator.
#include <fmt/format.h>

#include <algorithm>

#include "bench/link/link_kernels.hpp"
#include "bench/link/link_run.hpp"
#include "core/units.hpp"

namespace ferry::link {
namespace {

struct Planner {
  const LinkConfig& config;
  const Capabilities& capabilities;
  Plan plan;

  // A fixed-size sample: `trials` timing loops (one per direction) of `repeat`.
  void add(std::string what, const Repeat& repeat, SampleWork sample, int trials = 1, double setup_host_bytes = 0) {
    PlannedStep step{.what = std::move(what), .repeat = repeat, .sample = sample, .setup_host_bytes = setup_host_bytes};
    step.trials = trials;
    plan.steps.push_back(std::move(step));
  }

  // Copies of `bytes` in the three directions (h2d, d2h, both at once): a third more than one way, on average.
  static SampleWork three_ways(double bytes) {
    return {.link_bytes = bytes * 4 / 3, .host_bytes = 2 * bytes, .waits = 1};
  }

  void device(int d, const DeviceFeatures& features, const std::function<int(int)>& resident_teams) {
    for (int clock = 0; clock < 2; ++clock)
      for (const char* direction : {"h2d", "d2h"})
        for (std::uint64_t bytes : config.latency_bytes)
          add(fmt::format("device {}: {} copy latency, {}", d, direction, format_bytes(bytes)), config.latency_repeat,
              {.link_bytes = static_cast<double>(bytes), .host_bytes = static_cast<double>(bytes), .waits = 1});

    // The one-kernel launches first, then batches of launches about a quarter of a sync each.
    const double kernels = config.kernels_per_sample;
    add(fmt::format("device {}: kernel launch and sync", d), config.dispatch_repeat, {.waits = 1 + kernels / 4});
    if (capabilities.graphs)  // empty kernels and dependent ones, each also with programmatic edges where there are any
      add(fmt::format("device {}: graph replay", d), config.dispatch_repeat, {.waits = 1 + kernels / 8},
          features.programmatic_launch ? 4 : 2);
    if (capabilities.graphs && capabilities.mapped_memory)  // four nodes, two of them copies: about two syncs a launch
      add(fmt::format("device {}: graph launch -> flag seen x{}", d, config.graph_round_trips),
          {config.graph_round_trips / 10, config.graph_round_trips, config.graph_round_trips, 0}, {.waits = 2});
    if (features.all_teams_at_once) add(fmt::format("device {}: grid barrier", d), config.latency_repeat, {.waits = 2});
    if (features.cluster_teams >= 2)
      add(fmt::format("device {}: cluster barrier", d), config.latency_repeat, {.waits = 2});
    if (capabilities.mapped_memory) {
      add(fmt::format("device {}: stream-sync wake-up", d), config.latency_repeat, {.waits = 2});
      // A flag round trip is about a quarter of a launch and sync; a mapped read about a tenth, 2000 to a sample.
      for (const char* reply : {"", " behind a release fence"})
        add(fmt::format("device {}: persistent-kernel flag round trip{} x{}", d, reply, config.flag_round_trips),
            {0, 1, 1, 0}, {.waits = config.flag_round_trips / 4.0});
      add(fmt::format("device {}: mapped-memory read round trip", d), config.latency_repeat, {.waits = 2000 / 10.0});
      // A 4 KiB chunk's round trip is about two flag round trips.
      add(fmt::format("device {}: persistent-kernel chunk round trip x{}", d, config.flag_round_trips), {0, 1, 1, 0},
          {.waits = config.flag_round_trips / 2.0}, 1,
          2.0 * static_cast<double>(model::chunk_echo_bytes * chunk_echo_chunks(config.flag_round_trips)));
    }

    for (MemoryKind kind : config.host_memory)
      for (std::uint64_t bytes : config.sweep_bytes)
        add(fmt::format("device {}: {} host memory, {}", d, to_string(kind), format_bytes(bytes)),
            config.bandwidth_repeat, three_ways(static_cast<double>(bytes)), 3, 2.0 * static_cast<double>(bytes));
    if (capabilities.mapped_memory) {
      for (std::uint64_t bytes : config.sweep_bytes)
        if (bytes % sizeof(Word128) == 0)
          add(fmt::format("device {}: zero-copy kernels, {}", d, format_bytes(bytes)), config.bandwidth_repeat,
              three_ways(static_cast<double>(bytes)), 3, 2.0 * static_cast<double>(bytes));
      int last = 0;  // a team count the device cannot hold is clamped, and runs once
      const int resident = config.loaded_teams.empty() ? 0 : resident_teams(d);
      for (int wanted : config.loaded_teams) {
        const int teams = std::min(wanted, resident - 1);
        if (teams < 1 || last >= teams) continue;
        last = teams;
        const double passes = capabilities.gpu_timings ? 4 : 1;
        add(fmt::format("device {}: {} teams streaming host memory both ways, a read timed meanwhile", d, teams),
            config.bandwidth_repeat, {.link_bytes = passes * static_cast<double>(config.loaded_bytes), .waits = 1});
      }
    }
    for (std::uint64_t bytes : config.queued_copy_bytes) {
      const std::uint64_t copies = queued_copies_for(bytes, config.queued_batch_bytes);
      SampleWork batch = three_ways(static_cast<double>(copies * bytes));
      batch.waits = 1 + static_cast<double>(copies) / 4;
      add(fmt::format("device {}: {} copies of {} queued back to back", d, copies, format_bytes(bytes)),
          config.bandwidth_repeat, batch, 3, 2.0 * static_cast<double>(copies * bytes));
    }
    add(fmt::format("device {}: device-to-device copy, {}", d, format_bytes(config.device_copy_bytes)),
        config.bandwidth_repeat, {.device_bytes = 2.0 * static_cast<double>(config.device_copy_bytes), .waits = 1}, 1,
        static_cast<double>(config.device_copy_bytes));
  }

  void peers() {
    const auto& devices = config.devices;
    if (devices.size() < 2) return;
    const auto bytes = static_cast<double>(config.peer_bytes);
    const double mid = config.peer_bytes > (2u << 20) ? double(2u << 20) : 0;
    for (int from : devices)
      for (int to : devices)
        if (from != to) {
          // The copy at full size, at the definition's 2 MiB, and two latency loops of 8 bytes.
          add(fmt::format("peer {} -> {}: {}", from, to, format_bytes(config.peer_bytes)), config.bandwidth_repeat,
              {.peer_bytes = bytes + mid, .host_bytes = 0, .waits = 2}, 1, bytes);
          add_latency_loops(plan.steps.back());
        }
    std::vector<std::uint64_t> sizes = {std::min<std::uint64_t>(2 << 20, config.peer_bytes), config.peer_bytes};
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    const std::uint64_t sm_bytes = config.peer_bytes / sizeof(Word128) * sizeof(Word128);
    for (std::size_t i = 0; i < devices.size(); ++i)
      for (std::size_t j = i + 1; j < devices.size(); ++j) {
        for (std::uint64_t b : sizes)
          add(fmt::format("peer {} <-> {}: {} each way at once", devices[i], devices[j], format_bytes(b)),
              config.bandwidth_repeat, {.peer_bytes = 2.0 * static_cast<double>(b), .waits = 1}, 1,
              2.0 * static_cast<double>(b));
        for (const char* how : {"stores", "loads"})
          add(fmt::format("peer {} <-> {}: SM {} both ways, {}", devices[i], devices[j], how, format_bytes(sm_bytes)),
              config.bandwidth_repeat, {.peer_bytes = 2.0 * static_cast<double>(sm_bytes), .waits = 1});
      }
  }

  // A peer step's 8-byte copies, host clock and events, as fixed waits on top.
  void add_latency_loops(PlannedStep& step) const {
    const Repeat& r = config.latency_repeat;
    step.sample.waits += 2.0 * (r.warmup + r.min_samples) / std::max(1, step.repeat.min_samples);
  }
};

}  // namespace

Plan plan_run(const LinkConfig& config, const Capabilities& capabilities,
              const std::function<DeviceFeatures(int)>& features, const std::function<int(int)>& resident_teams) {
  Planner planner{config, capabilities, {}};
  if (config.per_device)
    for (int device : config.devices) planner.device(device, features(device), resident_teams);
  planner.peers();
  plan_peer_flags(config, planner.plan);
  return planner.plan;
}

Plan plan_run(Backend& backend, const LinkConfig& config) {
  return plan_run(
      config, backend.capabilities(), [&](int d) { return backend.device_features(d); },
      [&](int d) { return loaded_resident_teams(*backend.make_stream(d)); });
}

}  // namespace ferry::link
