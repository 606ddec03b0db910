#pragma once
// The vector add every variant computes, and its inputs. One FERRY_HD body for
// the GPU and the emulator; the host variant calls it too.
#include <cstdint>

#include "backend/hd.hpp"
#include "bench/common/pattern.hpp"

namespace ferry {
class Stream;
}

namespace ferry::overlap {

// Word i of vector a (which = 0) or b (which = 1): different in every word and
// in the two vectors, so a swapped or stale input cannot pass.
FERRY_HD inline std::uint32_t input_word(std::uint64_t i, int which, std::uint64_t seed) {
  return static_cast<std::uint32_t>(pattern_word(i, seed + 0x51ED27ull * static_cast<std::uint64_t>(which + 1)));
}

// c = a + b over 32-bit words, wrapping as int32 addition does on every machine.
struct VectorAdd {
  const std::uint32_t* a;
  const std::uint32_t* b;
  std::uint32_t* c;
  FERRY_HD void operator()(std::int64_t i) const { c[i] = a[i] + b[i]; }
};

// Enqueues the add over `count` words (overlap_launch.cpp, compiled as CUDA with the CUDA backend).
void launch_vector_add(Stream& stream, const VectorAdd& add, std::uint64_t count);

}  // namespace ferry::overlap
