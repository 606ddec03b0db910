// The pool design's host side: launch the workers, watcher and flagger once,
// ring slot c % depth's doorbell for chunk c, poll the slot's done flag, shut
// them down.
#include <fmt/format.h>

#include <algorithm>

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
  const int slots = static_cast<int>(chunks_in_flight(point, chunks));
  auto stream = backend_.make_stream(config_.device);
  const int workers = std::clamp(pool_workers, 1, std::max(1, pool_resident_teams(*stream) - 2));

  // released, then each worker's count, each on its own line.
  const std::uint64_t counters = (1 + static_cast<std::uint64_t>(workers)) * flag_stride;
  Buffer device_words = backend_.allocate_device(config_.device, counters * sizeof(std::uint64_t));
  stream->fill(device_words.data(), 0, device_words.bytes());
  stream->synchronize();
  // A doorbell and a done flag per slot, the failure word.
  const auto per_slot = static_cast<std::uint64_t>(slots);
  const MappedFlags flags(backend_, {.doorbells = per_slot, .done = per_slot, .failures = 1});
  const FlagWords host = flags.host(), device = flags.device();
  auto* words = device_words.as<std::uint64_t>();

  launch_pool(*stream, PoolStream{
                           .stages = config_.stages,
                           .rounds = config_.rounds_per_stage(),
                           .slots = slots,
                           .workers = workers,
                           .chunks = chunks,
                           .chunk_quads = point.chunk_bytes / quad_bytes,
                           .total_quads = config_.total_bytes / quad_bytes,
                           .input = input_.device_view_as<const Quad>(),
                           .output = output_.device_view_as<Quad>(),
                           .doorbells = device.doorbells,
                           .done = device.done,
                           .released = words,
                           .past = words + flag_stride,
                           .failure = device.failures,
                           .timeout_ns = config_.timeout_ns(),
                       });
  ShutdownOnExit shutdown = shutdown_by_doorbells(host.doorbells, slots, *stream);

  auto failure_text = [&](std::uint64_t failed) {
    const auto team = static_cast<int>(failed - 1);
    if (team == workers) return std::string(" (the watcher gave up waiting for a doorbell)");
    if (team == workers + 1) return std::string(" (the flagger gave up waiting for the workers)");
    return fmt::format(" (worker {} gave up waiting for its chunk's release)", team);
  };
  Pass pass = closed_loop(
      chunks, static_cast<std::uint64_t>(slots),
      [&](std::uint64_t c) { store_release_system(host.doorbells + (c % slots) * flag_stride, c + 1); },
      [&](std::uint64_t c) {
        wait_for_flag(host.done + (c % slots) * flag_stride, c + 1, 2 * config_.timeout_s, "pool", c, host.failures,
                      failure_text);
      });
  shutdown.now();
  return pass;
}

}  // namespace ferry::stream
