#include "bench/overlap/overlap_split.hpp"

#include <algorithm>

namespace ferry::overlap {

Split split_vector(std::uint64_t elements, int k, std::uint64_t min_bytes) {
  auto round_up = [](std::uint64_t bytes) {
    return (bytes + split_alignment_bytes - 1) / split_alignment_bytes * split_alignment_bytes;
  };
  const std::uint64_t bytes = elements * 4;
  const std::uint64_t wanted = (bytes + k - 1) / static_cast<std::uint64_t>(k);
  const std::uint64_t part_bytes = std::max(round_up(wanted), round_up(std::max<std::uint64_t>(min_bytes, 1)));
  const std::uint64_t part = part_bytes / 4;

  Split s;
  s.requested = k;
  for (std::uint64_t first = 0; first < elements; first += part)
    s.parts.push_back({first, std::min(part, elements - first)});
  s.clamped = static_cast<int>(s.parts.size()) < k && round_up(wanted) < part_bytes;
  return s;
}

}  // namespace ferry::overlap
