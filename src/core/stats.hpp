#pragma once
// Samples of one measured quantity and their statistics.
#include <vector>

namespace ferry {

struct Stats {
  double min = 0;
  double median = 0;
  double mean = 0;
  double p99 = 0;  // nearest-rank 99th percentile
  double max = 0;
};

// Throws std::invalid_argument on no samples: a figure without samples is a bug.
Stats summarize(const std::vector<double>& samples);

}  // namespace ferry
