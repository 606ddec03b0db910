// The pool design's host side: launch the workers, watcher and flagger once,
// ring slot c % depth's doorbell for chunk c, poll the slot's done flag, shut
// them down.
#include <fmt/format.h>

#include <algorithm>

#include "bench/stream/stream_doorbell_ring.hpp"
#include "bench/stream/stream_fused_kernels.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/error.hpp"

namespace ferry::stream {
namespace {

// Measured on an H100 (docs/stream.md, "What was tried"), one
// quad a thread in flight: 32 workers of 256 threads moved 64 KiB chunks at
// depth 8 at 26.3-26.6 GB/s in 19.4 us, where 16 moved 21.5 in 24 us (a
// 64 KiB chunk then takes half the lanes, and the next chunk the other
// half), and matched 16 from 128 KiB up.
constexpr int pool_workers = 32;

}  // namespace

Pass StreamBench::pool(const Point& point, std::uint64_t chunks) {
  DoorbellRing ring(backend_, config_, point, chunks);
  const int workers = std::clamp(pool_workers, 1, std::max(1, pool_resident_teams(ring.stream()) - 2));

  // released, then each worker's count, each on its own line.
  Buffer counters = ring.zeroed_device_words((1 + static_cast<std::uint64_t>(workers)) * flag_stride);
  ring.map_flags(1);  // a done flag per slot
  auto* words = counters.as<std::uint64_t>();

  auto kernel = ring.told<PoolStream>(input_, output_);
  kernel.workers = workers;
  kernel.chunks = chunks;
  kernel.released = words;
  kernel.past = words + flag_stride;
  launch_pool(ring.stream(), kernel);
  return ring.run(chunks, "pool", [&](std::uint64_t failed) {
    const auto team = static_cast<int>(failed - 1);
    if (team == workers) return std::string(" (the watcher gave up waiting for a doorbell)");
    if (team == workers + 1) return std::string(" (the flagger gave up waiting for the workers)");
    return fmt::format(" (worker {} gave up waiting for its chunk's release)", team);
  });
}

}  // namespace ferry::stream
