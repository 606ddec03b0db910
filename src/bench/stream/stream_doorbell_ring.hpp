#pragma once
// The host side that fused and pool share: a kernel launched once per pass
// that takes chunk c when ring slot c % slots' doorbell reads c + 1, raises
// the slot's done flags for it, and stops when every doorbell carries
// shutdown_bit. Internal to bench/stream.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bench/stream/stream_kernels.hpp"
#include "bench/stream/stream_run.hpp"

namespace ferry::stream {

class DoorbellRing {
 public:
  DoorbellRing(Backend& backend, const StreamConfig& config, const Point& point, std::uint64_t chunks);

  int slots() const { return slots_; }
  Stream& stream() { return *stream_; }

  // Device memory for the kernel's own counts, every word zero before it starts.
  Buffer zeroed_device_words(std::uint64_t words);

  // The mapped flags: a doorbell per slot, `done_per_slot` done flags per slot
  // and the failure word, all zero. Before told() and run().
  void map_flags(std::uint64_t done_per_slot);

  // A ring kernel (FusedStream, PoolStream) with the fields every one is told
  // alike set: the computation, the ring, the stream's mapped input and
  // output, the flags, the timeout. The caller sets the design's own.
  template <class Kernel>
  Kernel told(const Buffer& input, const Buffer& output) const {
    const FlagWords device = flags_->device();
    Kernel kernel{};
    kernel.stages = config_.stages;
    kernel.rounds = config_.rounds_per_stage();
    kernel.slots = slots_;
    kernel.chunk_quads = chunk_bytes_ / quad_bytes;
    kernel.total_quads = config_.total_bytes / quad_bytes;
    kernel.input = input.device_view_as<const Quad>();
    kernel.output = output.device_view_as<Quad>();
    kernel.doorbells = device.doorbells;
    kernel.done = device.done;
    kernel.failure = device.failures;
    kernel.timeout_ns = config_.timeout_ns();
    return kernel;
  }

  // The closed loop over `chunks` chunks, once the kernel is launched: chunk
  // c rings its slot's doorbell and is back when every done flag of the slot
  // reads c + 1. However the pass ends, every slot is rung with shutdown_bit
  // and the kernel awaited. A team that gave up is named by failure_text.
  Pass run(std::uint64_t chunks, std::string_view design,
           const std::function<std::string(std::uint64_t)>& failure_text);

 private:
  Backend& backend_;
  const StreamConfig& config_;
  std::uint64_t chunk_bytes_;
  int slots_;
  std::unique_ptr<Stream> stream_;
  std::uint64_t done_per_slot_ = 0;
  std::optional<MappedFlags> flags_;
};

}  // namespace ferry::stream
