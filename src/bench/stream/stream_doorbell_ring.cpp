#include "bench/stream/stream_doorbell_ring.hpp"

namespace ferry::stream {

DoorbellRing::DoorbellRing(Backend& backend, const StreamConfig& config, const Point& point, std::uint64_t chunks)
    : backend_(backend),
      config_(config),
      chunk_bytes_(point.chunk_bytes),
      slots_(static_cast<int>(chunks_in_flight(point, chunks))),
      stream_(backend.make_stream(config.device)) {}

Buffer DoorbellRing::zeroed_device_words(std::uint64_t words) {
  Buffer buffer = backend_.allocate_device(config_.device, words * sizeof(std::uint64_t));
  stream_->fill(buffer.data(), 0, buffer.bytes());
  stream_->synchronize();
  return buffer;
}

void DoorbellRing::map_flags(std::uint64_t done_per_slot) {
  done_per_slot_ = done_per_slot;
  const auto per_slot = static_cast<std::uint64_t>(slots_);
  flags_.emplace(backend_, FlagLayout{.doorbells = per_slot, .done = per_slot * done_per_slot, .failures = 1});
}

Pass DoorbellRing::run(std::uint64_t chunks, std::string_view design,
                       const std::function<std::string(std::uint64_t)>& failure_text) {
  const FlagWords host = flags_->host();
  const int slots = slots_;
  const std::uint64_t done_per_slot = done_per_slot_;
  const double timeout_s = 2 * config_.timeout_s;
  ShutdownOnExit shutdown = shutdown_by_doorbells(host.doorbells, slots, *stream_);
  Pass pass = closed_loop(
      chunks, static_cast<std::uint64_t>(slots),
      [&](std::uint64_t c) { store_release_system(host.doorbells + (c % slots) * flag_stride, c + 1); },
      [&](std::uint64_t c) {
        const std::uint64_t* flags_of_slot = host.done + (c % slots) * done_per_slot * flag_stride;
        for (std::uint64_t f = 0; f < done_per_slot; ++f)
          wait_for_flag(flags_of_slot + f * flag_stride, c + 1, timeout_s, design, c, host.failures, failure_text);
      });
  shutdown.now();
  return pass;
}

}  // namespace ferry::stream
