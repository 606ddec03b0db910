// What a `topo` run will do before it does it: who takes part, which
// topologies they can form (a topology they cannot is named with the reason),
// and every step with what one round moves. The run takes its progress total
// from here and `--dry-run` prints it.
#include <fmt/format.h>

#include <algorithm>

#include "bench/topo/topo.hpp"
#include "bench/topo/topo_run.hpp"
#include "core/units.hpp"

namespace ferry::topo {

using transport::Kind;
using transport::Pattern;

Participants participants_of(const World& world, const TopoConfig& config) {
  const bool one_per_rank = world.distributed();
  return {one_per_rank, one_per_rank ? world.size() : static_cast<int>(config.devices.size())};
}

std::string cannot_form(Topology topology, Participants who) {
  const int n = who.count;
  switch (topology) {
    case Topology::pair:
      if (n < 2) return "needs 2 devices (--devices 0,1) or 2 ranks";
      if (who.one_per_rank && n != 2)
        return fmt::format("under mpirun it needs exactly 2 ranks, not {}: with more, ring and fully-connected "
                           "take every rank",
                           n);
      return "";
    case Topology::ring:
    case Topology::fully_connected:
      if (n == 2) return fmt::format("{} of 2 devices is the pair both ways (measured as pair)", to_string(topology));
      if (n < 3) return "needs 3 devices or more";
      return "";
    case Topology::host_staged: return n < 2 ? "needs 2 devices or 2 ranks" : "";
    case Topology::matrix:
      if (who.one_per_rank)
        return "the pairwise matrix drives every device from one process: run it without mpirun (--devices 0,1,...)";
      return n < 2 ? "needs 2 devices (--devices 0,1)" : "";
  }
  return "";
}

std::vector<std::uint64_t> host_step_sizes(const TopoConfig& config) {
  const std::uint64_t largest = config.sizes.back();
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = 1ull << 20; bytes <= std::min<std::uint64_t>(largest, 64ull << 20); bytes *= 4)
    sizes.push_back(bytes);
  if (sizes.empty()) sizes.push_back(largest);
  return sizes;
}

Plan plan_run(Backend& backend, World& world, const Machine& machine, const TopoConfig& config) {
  (void)backend;  // what the run can form depends on who takes part, not on the backend or the machine
  (void)machine;
  const Participants who = participants_of(world, config);
  Plan p;
  auto rounds = [&](int n, Pattern pattern, std::uint64_t bytes) {
    const double moved = static_cast<double>(n) * transport::fan_of(pattern, n) * static_cast<double>(bytes);
    // A round fills what is sent, poisons what will arrive and checks it; a first round is not timed.
    return PlannedStep{.repeat = {.warmup = 1, .min_samples = config.rounds, .max_samples = config.rounds},
                       .sample = {.peer_bytes = moved, .host_bytes = 3 * moved, .waits = 2}};
  };
  auto variant = [&](const std::string& name, Pattern pattern, int n, Kind kind) {
    p.steps.push_back(
        {.what = fmt::format("{} by {}: opening", name, to_string(kind)), .repeat = {0, 0, 0, 0}, .setup_s = 0.05});
    for (std::size_t s = 0; s < config.sizes.size(); ++s) {
      PlannedStep step = rounds(n, pattern, config.sizes[s]);
      step.what = fmt::format("{} by {}: {} rounds of {} (size {} of {})", name, to_string(kind), config.rounds,
                              format_bytes(config.sizes[s]), s + 1, config.sizes.size());
      p.steps.push_back(std::move(step));
    }
  };
  for (Topology topology : config.topologies) {
    if (const std::string why = cannot_form(topology, who); !why.empty()) {
      p.skipped.push_back(fmt::format("{}: {}", to_string(topology), why));
      continue;
    }
    const int n = who.count;
    switch (topology) {
      case Topology::pair:
        for (Kind kind : config.transports) {
          variant("pair one-way", Pattern::one_way, 2, kind);
          variant("pair both", Pattern::ring, 2, kind);
        }
        break;
      case Topology::ring:
        for (Kind kind : config.transports) variant("ring", Pattern::ring, n, kind);
        break;
      case Topology::fully_connected:
        for (Kind kind : config.transports) variant("fully-connected", Pattern::fully_connected, n, kind);
        break;
      case Topology::host_staged: {
        const Pattern pattern = n == 2 ? Pattern::ring : Pattern::fully_connected;
        for (std::uint64_t bytes : host_step_sizes(config))
          p.steps.push_back(
              {.what = fmt::format("host-staged: the host -> host step alone, {}", format_bytes(bytes)),
               .repeat = {1, 5, 5, 0},
               .sample = {.host_bytes = 2.0 * n * transport::fan_of(pattern, n) * static_cast<double>(bytes)}});
        variant("host-staged", pattern, n, who.one_per_rank ? Kind::mpi_staged : Kind::host_staged);
        break;
      }
      case Topology::matrix:
        for (int a : config.devices)
          for (int b : config.devices)
            if (a != b)
              for (Kind kind : config.transports) {
                PlannedStep step = rounds(2, Pattern::one_way, config.matrix_bytes);
                step.what = fmt::format("matrix by {}: {} -> {}", to_string(kind), a, b);
                step.repeat.min_samples = step.repeat.max_samples = 2 * config.rounds;  // and the latency's rounds
                p.steps.push_back(std::move(step));
              }
        break;
    }
  }
  return p;
}

}  // namespace ferry::topo
