#pragma once
// Work over a large host array split across the host's cores.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace ferry {

// Runs body(first, end) over [0, count) in pieces of at least `min_per_thread`
// items, one thread per piece, up to the number of cores; returns when all are done.
template <class Body>
void parallel_ranges(std::int64_t count, std::int64_t min_per_thread, Body body) {
  const std::int64_t threads = std::clamp<std::int64_t>(count / std::max<std::int64_t>(1, min_per_thread), 1,
                                                        std::max(1u, std::thread::hardware_concurrency()));
  if (threads == 1) {
    body(std::int64_t{0}, count);
    return;
  }
  std::vector<std::jthread> pool;
  const std::int64_t share = (count + threads - 1) / threads;
  for (std::int64_t t = 0; t < threads; ++t) {
    const std::int64_t first = t * share, end = std::min(count, first + share);
    if (first < end) pool.emplace_back([=] { body(first, end); });
  }
}

}  // namespace ferry
