// Each local participant's send and receive areas, and the untimed work on
// them around every measurement: fill, poison, check.
#include "bench/beff/beff_run.hpp"
#include "bench/beff/messages.hpp"
#include "bench/common/verify.hpp"

namespace ferry::beff {

LocalAreas::LocalAreas(Backend& backend, const std::vector<int>& devices, int first_index, int participants,
                       std::uint64_t area_bytes, std::uint64_t largest_message) {
  group_.participants = participants;
  group_.area_bytes = area_bytes;
  group_.largest_message = largest_message;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    Local local;
    local.stream = backend.make_stream(devices[k]);
    local.send = backend.allocate_device(devices[k], area_bytes);
    local.receive = backend.allocate_device(devices[k], area_bytes);
    local.counter = backend.allocate_device(devices[k], sizeof(unsigned long long));
    local.counter_host = backend.allocate_host(MemoryKind::pinned, sizeof(unsigned long long));
    group_.local.push_back({.index = first_index + static_cast<int>(k),
                            .device = devices[k],
                            .send = local.send.data(),
                            .receive = local.receive.data()});
    locals_.push_back(std::move(local));
  }
}

void LocalAreas::fill_send(const transport::ExchangePlan& plan) {
  for (std::size_t k = 0; k < locals_.size(); ++k)
    enqueue_fill(*locals_[k].stream, locals_[k].send.as<unsigned char>(), plan, group_.local[k].index);
  for (Local& local : locals_) local.stream->synchronize();
}

void LocalAreas::poison_receive(const transport::ExchangePlan& plan) {
  const auto bytes = static_cast<std::uint64_t>(plan.slots.slots_used()) * plan.pitch;
  for (Local& local : locals_) local.stream->fill(local.receive.data(), poison_byte, bytes);
  for (Local& local : locals_) local.stream->synchronize();
}

std::uint64_t LocalAreas::wrong_words(const transport::ExchangePlan& plan, std::size_t k) {
  Local& local = locals_[k];
  local.stream->fill(local.counter.data(), 0, sizeof(unsigned long long));
  enqueue_count_wrong(*local.stream, local.receive.as<const unsigned char>(), plan, group_.local[k].index,
                      local.counter.as<unsigned long long>());
  local.stream->copy(local.counter_host.data(), local.counter.data(), sizeof(unsigned long long));
  local.stream->synchronize();
  return *local.counter_host.as<unsigned long long>();
}

void LocalAreas::corrupt_one_byte(const transport::ExchangePlan& plan) {
  for (std::size_t k = 0; k < locals_.size(); ++k) {
    if (group_.local[k].index != 0) continue;
    const std::int64_t slot = plan.slots.slot(plan.slots.middle());
    const int sender = expected_sender(plan, 0, slot);
    if (sender < 0) return;
    const std::uint64_t at = plan.bytes / 2;
    const auto right = pattern_byte(at, message_seed(sender, slot, plan));
    locals_[k].stream->fill(locals_[k].receive.data() + static_cast<std::uint64_t>(slot) * plan.pitch + at,
                            static_cast<std::uint8_t>(right ^ 0xFF), 1);
    locals_[k].stream->synchronize();
  }
}

}  // namespace ferry::beff
