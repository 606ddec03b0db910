#include "bench/dispatch/sort_keys.hpp"

#include <algorithm>
#include <thread>

#include "bench/common/pattern.hpp"
#include "core/host_parallel.hpp"

namespace ferry::dispatch {
namespace {

constexpr std::int64_t keys_per_host_thread = 1 << 20;
constexpr std::uint64_t keys_seed = 0x5EED50F7;

// f(i) for i in [0, n), spread over the host's cores.
template <class Each>
void for_each_in_parallel(std::uint64_t n, Each each) {
  parallel_ranges(static_cast<std::int64_t>(n), 1, [&](std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) each(static_cast<std::uint64_t>(i));
  });
}

}  // namespace

void fill_keys(std::uint32_t* keys, std::uint64_t count, std::uint64_t draw) {
  const std::uint64_t seed = keys_seed + draw * 0x9E3779B97F4A7C15ull;
  parallel_ranges(static_cast<std::int64_t>(count), keys_per_host_thread, [&](std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) {
      const std::uint64_t word = pattern_word(static_cast<std::uint64_t>(i), seed);
      keys[i] = (word & 7) == 0 ? static_cast<std::uint32_t>(word >> 58) : static_cast<std::uint32_t>(word >> 32);
    }
  });
}

std::vector<std::uint32_t> sorted_reference(const std::uint32_t* keys, std::uint64_t count) {
  std::vector<std::uint32_t> sorted(keys, keys + count);
  std::uint64_t pieces = 1;
  const std::uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
  while (pieces * 2 <= cores && count / (pieces * 2) >= static_cast<std::uint64_t>(keys_per_host_thread)) pieces *= 2;
  const std::uint64_t piece = (count + pieces - 1) / pieces;
  const auto at = [&](std::uint64_t i) {
    return sorted.begin() + static_cast<std::ptrdiff_t>(std::min(count, i * piece));
  };
  for_each_in_parallel(pieces, [&](std::uint64_t i) { std::sort(at(i), at(i + 1)); });
  for (std::uint64_t width = 1; width < pieces; width *= 2)
    for_each_in_parallel(pieces / (2 * width), [&](std::uint64_t j) {
      std::inplace_merge(at(2 * j * width), at((2 * j + 1) * width), at((2 * j + 2) * width));
    });
  return sorted;
}

bool holds_the_input_sorted(const std::uint32_t* in, const std::uint32_t* out, std::uint64_t count) {
  const std::vector<std::uint32_t> expected = sorted_reference(in, count);
  return std::equal(expected.begin(), expected.end(), out);
}

}  // namespace ferry::dispatch
