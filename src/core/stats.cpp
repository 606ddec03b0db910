#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ferry {

Stats summarize(const std::vector<double>& samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  Stats s;
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  const auto rank = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n)));
  s.p99 = sorted[std::max<std::size_t>(rank, 1) - 1];
  return s;
}

}  // namespace ferry
