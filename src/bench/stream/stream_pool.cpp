// The pool design's host side: launch the pool once, ring slot c % depth's
// doorbell for chunk c, poll the slot's done flag, shut the pool down.
#include <fmt/format.h>

#include <algorithm>

#include "bench/stream/stream_fused_kernels.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/error.hpp"

namespace ferry::stream {
namespace {

// A piece: 16 KiB, a team's single wave of loads (8 per thread).
constexpr std::uint64_t piece_quads = 1024;
// One worker per this many multiprocessors. Measured on H100
// (docs/results/stream-experiments): 16, 32 and 64 workers moved 256 KiB-4
// MiB chunks at depth 4 within the run-to-run spread of each other, at 26-35
// GB/s. A quarter of the multiprocessors (33 on H100) sits in the middle.
constexpr int multiprocessors_per_worker = 4;

}  // namespace

Pass StreamBench::pool(const Point& point, std::uint64_t chunks) {
  const int slots = static_cast<int>(std::min(static_cast<std::uint64_t>(point.depth), chunks));
  auto stream = backend_.make_stream(config_.device);
  const int resident = pool_resident_teams(*stream);
  const int workers = std::clamp(multiprocessors_ / multiprocessors_per_worker, 1, std::max(1, resident - 2));
  const std::uint64_t chunk_quads = point.chunk_bytes / quad_bytes;
  const std::uint64_t pieces_per_chunk = (chunk_quads + piece_quads - 1) / piece_quads;

  // released, next_piece, then pieces_done per slot.
  const std::uint64_t counters = 2 + static_cast<std::uint64_t>(slots);
  Buffer device_words = backend_.allocate_device(config_.device, counters * sizeof(std::uint64_t));
  stream->fill(device_words.data(), 0, device_words.bytes());
  stream->synchronize();
  // Doorbells, done flags (per slot) and the failure word, each on its own line.
  const std::uint64_t shared_words = (2 * static_cast<std::uint64_t>(slots) + 1) * flag_stride;
  Buffer shared = backend_.allocate_host(MemoryKind::mapped, shared_words * sizeof(std::uint64_t));
  std::fill_n(shared.as<std::uint64_t>(), shared_words, 0);
  std::uint64_t* doorbells = shared.as<std::uint64_t>();
  const std::uint64_t* done = doorbells + slots * flag_stride;
  const std::uint64_t* failure = done + slots * flag_stride;
  auto* view = shared.device_view_as<std::uint64_t>();
  auto* words = device_words.as<std::uint64_t>();

  launch_pool(*stream, PoolStream{
                           .stages = config_.stages,
                           .rounds = config_.rounds_per_stage(),
                           .slots = slots,
                           .workers = workers,
                           .chunks = chunks,
                           .chunk_quads = chunk_quads,
                           .total_quads = config_.total_bytes / quad_bytes,
                           .piece_quads = std::min(piece_quads, chunk_quads),
                           .pieces_per_chunk = pieces_per_chunk,
                           .input = input_.device_view_as<const Quad>(),
                           .output = output_.device_view_as<Quad>(),
                           .doorbells = view,
                           .done = view + slots * flag_stride,
                           .released = words,
                           .next_piece = words + 1,
                           .pieces_done = words + 2,
                           .failure = view + 2 * slots * flag_stride,
                           .timeout_ns = config_.timeout_ns(),
                       });
  ShutdownOnExit shutdown = shutdown_by_doorbells(doorbells, slots, *stream);

  auto failure_text = [&](std::uint64_t failed) {
    const auto team = static_cast<int>(failed - 1);
    if (team == workers) return std::string(" (the watcher gave up waiting for a doorbell)");
    if (team == workers + 1) return std::string(" (the flagger gave up waiting for a chunk's pieces)");
    return fmt::format(" (worker {} gave up waiting for its chunk's release)", team);
  };
  Pass pass = closed_loop(
      chunks, static_cast<std::uint64_t>(slots),
      [&](std::uint64_t c) { store_release_system(doorbells + (c % slots) * flag_stride, c + 1); },
      [&](std::uint64_t c) {
        wait_for_flag(done + (c % slots) * flag_stride, c + 1, 2 * config_.timeout_s, "pool", c, failure, failure_text);
      });
  shutdown.now();
  return pass;
}

}  // namespace ferry::stream
