#pragma once
// Filling, poisoning and checking buffers wherever they live: device memory
// with kernels on the buffer's device, host memory on host threads.
#include <cstdint>
#include <map>
#include <memory>

#include "backend/backend.hpp"

namespace ferry {

class PatternChecker {
 public:
  explicit PatternChecker(Backend& backend) : backend_(backend) {}

  // Each call finishes its work before it returns. `stream` must be on the
  // buffer's device when the buffer is device memory.
  void fill(Stream& stream, Buffer& buffer, std::uint64_t seed);
  void poison(Stream& stream, Buffer& buffer);
  // Number of 8-byte words that differ from the pattern (0: every byte arrived).
  std::uint64_t mismatches(Stream& stream, const Buffer& buffer, std::uint64_t seed);
  bool matches(Stream& stream, const Buffer& buffer, std::uint64_t seed) {
    return mismatches(stream, buffer, seed) == 0;
  }

 private:
  struct Counter {
    Buffer device;  // where the kernel counts
    Buffer host;    // where the host reads the count
  };
  Counter& counter(int device);

  Backend& backend_;
  std::map<int, Counter> counters_;
};

// Host-side forms, split over threads for large buffers.
void fill_pattern_on_host(void* data, std::uint64_t bytes, std::uint64_t seed);
std::uint64_t count_mismatches_on_host(const void* data, std::uint64_t bytes, std::uint64_t seed);
void poison_on_host(void* data, std::uint64_t bytes);

constexpr std::uint8_t poison_byte = 0xA5;

}  // namespace ferry
