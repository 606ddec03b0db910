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

TEST(Stats, EachStatisticOfAsymmetricSamplesInAnyOrder) {
  // 1..198 s, 500 s and 1000 s, in a scrambled order: the five statistics all differ, and none is the
  // first or the last sample taken.
  std::vector<double> samples;
  for (int i = 0; i < 200; ++i) {
    const int k = (i * 73 + 11) % 200;  // a permutation of 0..199
    samples.push_back(k < 198 ? k + 1.0 : k == 198 ? 500.0 : 1000.0);
  }
  const Stats s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, (100 + 101) / 2.0);
  EXPECT_DOUBLE_EQ(s.mean, (198 * 199 / 2 + 500 + 1000) / 200.0);  // 106.005
  EXPECT_DOUBLE_EQ(s.p99, 198) << "the 198th smallest: ceil(0.99 x 200)";
  EXPECT_DOUBLE_EQ(s.max, 1000);
}

TEST(Stats, NoSamplesIsAnError) { EXPECT_THROW(summarize({}), std::invalid_argument); }

}  // namespace
}  // namespace ferry
