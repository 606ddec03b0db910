// The fused design's host side: launch the kernel once, ring slot c % depth's
// doorbell for chunk c, poll the done flags of its teams, shut it down.
#include <fmt/format.h>

#include <algorithm>

#include "bench/stream/stream_fused_kernels.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/error.hpp"

namespace ferry::stream {
namespace {

// A team's share of a chunk: 16 KiB, as a zerocopy team's, so a 256 KiB chunk
// keeps 16 multiprocessors' reads in flight and a 4 KiB chunk is one team's
// single wave of loads.
constexpr std::uint64_t quads_per_team = 1024;

}  // namespace

int StreamBench::fused_teams_per_group(std::uint64_t chunk_bytes, int groups, int resident) const {
  const auto wanted = static_cast<int>(
      std::min<std::uint64_t>(1 << 20, (chunk_bytes / quad_bytes + quads_per_team - 1) / quads_per_team));
  // Two teams per multiprocessor at most: more only add pollers.
  const int most = std::min(resident, 2 * multiprocessors_) / groups;
  return std::clamp(wanted, 1, std::max(1, most));
}

Pass StreamBench::fused(const Point& point, std::uint64_t chunks) {
  const int slots = static_cast<int>(chunks_in_flight(point, chunks));
  auto stream = backend_.make_stream(config_.device);
  const int resident = fused_resident_teams(*stream);
  const int groups = std::min(slots, resident);
  const int teams = fused_teams_per_group(point.chunk_bytes, groups, resident);

  // Per group: the doorbell as its first team saw it.
  Buffer relay = backend_.allocate_device(config_.device, static_cast<std::size_t>(groups) * sizeof(std::uint64_t));
  stream->fill(relay.data(), 0, relay.bytes());
  stream->synchronize();
  // A doorbell per slot, a done flag per slot and team, the failure word.
  const auto per_slot = static_cast<std::uint64_t>(slots);
  const MappedFlags flags(backend_, {.doorbells = per_slot, .done = per_slot * teams, .failures = 1});
  const FlagWords host = flags.host(), device = flags.device();

  launch_fused(*stream, FusedStream{
                            .stages = config_.stages,
                            .rounds = config_.rounds_per_stage(),
                            .slots = slots,
                            .groups = groups,
                            .teams_per_group = teams,
                            .chunk_quads = point.chunk_bytes / quad_bytes,
                            .total_quads = config_.total_bytes / quad_bytes,
                            .input = input_.device_view_as<const Quad>(),
                            .output = output_.device_view_as<Quad>(),
                            .doorbells = device.doorbells,
                            .done = device.done,
                            .relay = relay.as<std::uint64_t>(),
                            .failure = device.failures,
                            .timeout_ns = config_.timeout_ns(),
                        });

  ShutdownOnExit shutdown = shutdown_by_doorbells(host.doorbells, slots, *stream);

  auto failure_text = [&](std::uint64_t failed) {
    const auto team = static_cast<int>(failed - 1);
    return fmt::format(" (group {} team {} gave up waiting for its doorbell)", team / teams, team % teams);
  };
  Pass pass = closed_loop(
      chunks, static_cast<std::uint64_t>(slots),
      [&](std::uint64_t c) { store_release_system(host.doorbells + (c % slots) * flag_stride, c + 1); },
      [&](std::uint64_t c) {
        const std::uint64_t* flags_of_slot = host.done + (c % slots) * teams * flag_stride;
        for (int b = 0; b < teams; ++b)
          wait_for_flag(flags_of_slot + b * flag_stride, c + 1, 2 * config_.timeout_s, "fused", c, host.failures,
                        failure_text);
      });
  shutdown.now();
  return pass;
}

}  // namespace ferry::stream
