#include "bench/common/verify.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "backend/launch.hpp"
#include "bench/common/pattern.hpp"
#include "core/host_parallel.hpp"

namespace ferry {
namespace {

// Below 16 MiB a thread costs more than it saves.
template <class Body>
void over_words(std::uint64_t bytes, Body body) {
  parallel_ranges(pattern_words(bytes), (16ll << 20) / 8, body);
}

}  // namespace

void fill_pattern_on_host(void* data, std::uint64_t bytes, std::uint64_t seed) {
  const FillPattern kernel{static_cast<unsigned char*>(data), bytes, seed};
  over_words(bytes, [&](std::int64_t first, std::int64_t end) {
    for (std::int64_t w = first; w < end; ++w) kernel(w);
  });
}

std::uint64_t count_mismatches_on_host(const void* data, std::uint64_t bytes, std::uint64_t seed) {
  std::atomic<std::uint64_t> total{0};
  over_words(bytes, [&](std::int64_t first, std::int64_t end) {
    unsigned long long mismatches = 0;
    const CountMismatches count_word{static_cast<const unsigned char*>(data), bytes, seed, &mismatches};
    for (std::int64_t w = first; w < end; ++w) count_word(w);
    total += mismatches;
  });
  return total;
}

void poison_on_host(void* data, std::uint64_t bytes) {
  over_words(bytes, [&](std::int64_t first, std::int64_t end) {
    const std::uint64_t from = static_cast<std::uint64_t>(first) * 8;
    const std::uint64_t to = std::min<std::uint64_t>(bytes, static_cast<std::uint64_t>(end) * 8);
    std::memset(static_cast<unsigned char*>(data) + from, poison_byte, to - from);
  });
}

PatternChecker::Counter& PatternChecker::counter(int device) {
  auto it = counters_.find(device);
  if (it == counters_.end()) {
    Counter c{backend_.allocate_device(device, sizeof(unsigned long long)),
              backend_.allocate_host(MemoryKind::pinned, sizeof(unsigned long long))};
    it = counters_.emplace(device, std::move(c)).first;
  }
  return it->second;
}

void PatternChecker::fill(Stream& stream, Buffer& buffer, std::uint64_t seed) {
  if (buffer.host_visible()) {
    fill_pattern_on_host(buffer.data(), buffer.bytes(), seed);
    return;
  }
  parallel_for(stream, pattern_words(buffer.bytes()), FillPattern{buffer.as<unsigned char>(), buffer.bytes(), seed});
  stream.synchronize();
}

void PatternChecker::poison(Stream& stream, Buffer& buffer) {
  // On a GPU the device poisons pinned memory, as the copy it precedes writes it. Written by the CPU, its lines sat
  // dirty in the CPU's cache, and a device -> host copy into them ran at 29-35 GB/s instead of 54.7 (64 MiB on an
  // H100 whose host has 300 MiB of L3; 47 instead of 55 at 256 MiB): the figure measured the poisoning.
  if (buffer.kind() == MemoryKind::pinned && backend_.capabilities().gpu_timings) {
    stream.fill(buffer.data(), poison_byte, buffer.bytes());
    stream.synchronize();
    return;
  }
  if (buffer.host_visible()) {
    poison_on_host(buffer.data(), buffer.bytes());
    return;
  }
  stream.fill(buffer.data(), poison_byte, buffer.bytes());
  stream.synchronize();
}

std::uint64_t PatternChecker::mismatches(Stream& stream, const Buffer& buffer, std::uint64_t seed) {
  if (buffer.host_visible()) return count_mismatches_on_host(buffer.data(), buffer.bytes(), seed);
  Counter& c = counter(buffer.device());
  stream.fill(c.device.data(), 0, sizeof(unsigned long long));
  const CountMismatches count_word{buffer.as<const unsigned char>(), buffer.bytes(), seed,
                                   c.device.as<unsigned long long>()};
  parallel_for(stream, pattern_words(buffer.bytes()), count_word);
  stream.copy(c.host.data(), c.device.data(), sizeof(unsigned long long));
  stream.synchronize();
  return *c.host.as<unsigned long long>();
}

}  // namespace ferry
