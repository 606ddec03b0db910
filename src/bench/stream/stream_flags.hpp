#pragma once
// The words the host and a stream kernel share in mapped host memory, and
// where each lies: the doorbells the host rings, the done flags the kernel
// raises and the failure words where a team that gave up says so. Fused, pool
// and persistent share one layout and differ only in how many of each; graph
// and zerocopy have done flags alone. Kernel-safe: compiled by nvcc too.
#include <cstdint>

#include "backend/hd.hpp"

namespace ferry::stream {

// Words from one flag in host memory to the next: a 128-byte line each, so the
// host polling one flag never shares a cache line with the GPU writing another
// (shared lines cost a coherence round trip over PCIe on every access).
constexpr std::uint64_t flag_stride = 16;

// Set in a done count (and a doorbell) once the shutdown message came after
// the chunks it counts.
constexpr std::uint64_t shutdown_bit = 1ull << 63;

// A failure word no team wrote. Zero, so flags that start zeroed start with
// no chunk rung, none done and no failure.
constexpr std::uint64_t no_failure = 0;

// Pointers to the three runs of flags, each flag flag_stride words from the next.
struct FlagWords {
  std::uint64_t* doorbells;
  std::uint64_t* done;
  std::uint64_t* failures;
};

// How many flags of each kind, laid out doorbells first, then done flags,
// then failure words.
struct FlagLayout {
  std::uint64_t doorbells = 0;
  std::uint64_t done = 0;
  std::uint64_t failures = 0;

  FERRY_HD constexpr std::uint64_t words() const { return (doorbells + done + failures) * flag_stride; }
  FERRY_HD constexpr std::uint64_t bytes() const { return words() * sizeof(std::uint64_t); }
  // The flags of the layout's words starting at `base` (the host's pointer, or the kernel's view).
  FERRY_HD constexpr FlagWords at(std::uint64_t* base) const {
    return {base, base + doorbells * flag_stride, base + (doorbells + done) * flag_stride};
  }
};

}  // namespace ferry::stream
