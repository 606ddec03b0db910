#include "core/stats.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace ferry {
namespace {

TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(summarize({3, 1, 2}).median, 2);
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median, 2.5);
}

TEST(Stats, MinMeanMaxAndNearestRankP99) {
  std::vector<double> samples(200);
  std::iota(samples.begin(), samples.end(), 1.0);  // 1..200
  const Stats s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 200);
  EXPECT_DOUBLE_EQ(s.mean, 100.5);
  EXPECT_DOUBLE_EQ(s.p99, 198);  // rank ceil(0.99 * 200) = 198
}

TEST(Stats, NoSamplesIsAnError) { EXPECT_THROW(summarize({}), std::invalid_argument); }

}  // namespace
}  // namespace ferry
