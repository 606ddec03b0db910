// The fused design's host side: launch the kernel once, ring slot c % depth's
// doorbell for chunk c, poll the done flags of its teams, shut it down.
#include <fmt/format.h>

#include <algorithm>

#include "bench/stream/stream_doorbell_ring.hpp"
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
  DoorbellRing ring(backend_, config_, point, chunks);
  const int resident = fused_resident_teams(ring.stream());
  const int groups = std::min(ring.slots(), resident);
  const int teams = fused_teams_per_group(point.chunk_bytes, groups, resident);

  // Per group: the doorbell as its first team saw it.
  Buffer relay = ring.zeroed_device_words(static_cast<std::uint64_t>(groups));
  ring.map_flags(static_cast<std::uint64_t>(teams));  // a done flag per slot and team

  auto kernel = ring.told<FusedStream>(input_, output_);
  kernel.groups = groups;
  kernel.teams_per_group = teams;
  kernel.relay = relay.as<std::uint64_t>();
  launch_fused(ring.stream(), kernel);
  return ring.run(chunks, "fused", [&](std::uint64_t failed) {
    const auto team = static_cast<int>(failed - 1);
    return fmt::format(" (group {} team {} gave up waiting for its doorbell)", team / teams, team % teams);
  });
}

}  // namespace ferry::stream
