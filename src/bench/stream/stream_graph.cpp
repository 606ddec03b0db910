// The graph design's host side: a ring of instantiated graphs, one per chunk
// in flight, each on its own stream. A chunk costs one graph launch (its two
// copies pointed at the chunk first); the host learns it is back by polling a
// word in mapped memory that the graph's last node raises, not by a stream sync.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "bench/stream/stream_fused_kernels.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/error.hpp"

namespace ferry::stream {
namespace {

constexpr std::size_t copy_in = 0, copy_out = 1;  // the graph's copies, in capture order

}  // namespace

Pass StreamBench::graph_ring(const Point& point, std::uint64_t chunks) {
  if (!backend_.capabilities().graphs) throw UsageError("graph: the backend has no graphs");
  struct Slot {
    std::unique_ptr<Stream> stream;
    Buffer chunk;  // device memory
    std::unique_ptr<Graph> graph;
  };
  const int rounds = config_.rounds_per_stage(), stages = config_.stages;
  const std::uint64_t chunk_quads = point.chunk_bytes / quad_bytes;
  std::vector<Slot> slots(chunks_in_flight(point, chunks));

  Buffer counts = backend_.allocate_device(config_.device, slots.size() * sizeof(std::uint64_t));
  const MappedFlags flags(backend_, {.done = slots.size()});  // per slot, the count of its chunks raised
  for (std::size_t k = 0; k < slots.size(); ++k) {
    Slot& s = slots[k];
    s.stream = backend_.make_stream(config_.device);
    s.chunk = backend_.allocate_device(config_.device, point.chunk_bytes);
    if (k == 0) {
      s.stream->fill(counts.data(), 0, counts.bytes());
      s.stream->synchronize();
    }
    // Captured on the first chunk's memory; every launch points the copies at its own chunk.
    s.stream->begin_capture();
    s.stream->copy(s.chunk.data(), input_.data(), point.chunk_bytes);
    launch_stages(*s.stream, {s.chunk.as<Quad>(), s.chunk.as<Quad>(), 0, stages, rounds}, chunk_quads);
    s.stream->copy(output_.data(), s.chunk.data(), point.chunk_bytes);
    launch_raise_slot_flag(*s.stream, {counts.as<std::uint64_t>() + k, flags.device().done + k * flag_stride});
    s.graph = s.stream->end_capture();
  }

  auto hand_over = [&](std::uint64_t c) {
    Slot& s = slots[c % slots.size()];
    const std::uint64_t offset = c * point.chunk_bytes;
    const std::uint64_t bytes = std::min(point.chunk_bytes, config_.total_bytes - offset);
    s.graph->retarget_copy(copy_in, s.chunk.data(), input_.data() + offset, bytes);
    s.graph->retarget_copy(copy_out, output_.data() + offset, s.chunk.data(), bytes);
    s.stream->replay(*s.graph);
  };
  // Chunk c is its slot's (c / slots + 1)-th.
  auto await = [&](std::uint64_t c) {
    wait_for_flag(flags.host().done + (c % slots.size()) * flag_stride, c / slots.size() + 1, config_.timeout_s,
                  "graph", c);
  };
  Pass pass = closed_loop(chunks, slots.size(), hand_over, await);
  for (Slot& s : slots) s.stream->synchronize();  // a flag comes just before its graph ends
  return pass;
}

}  // namespace ferry::stream
