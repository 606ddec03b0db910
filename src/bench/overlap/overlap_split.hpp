#pragma once
// How a vector is cut into sub-buffers: about N/k words each, on 4 KiB
// boundaries, never below a floor; the last takes what remains.
#include <cstdint>
#include <vector>

namespace ferry::overlap {

struct SubBuffer {
  std::uint64_t first;  // word index
  std::uint64_t count;  // words
};

struct Split {
  int requested = 1;
  std::vector<SubBuffer> parts;
  bool clamped = false;  // the floor gave fewer parts than requested
};

constexpr std::uint64_t split_alignment_bytes = 4096;

// `elements` 32-bit words into about `k` parts of at least `min_bytes` (rounded up to 4 KiB).
Split split_vector(std::uint64_t elements, int k, std::uint64_t min_bytes);

}  // namespace ferry::overlap
