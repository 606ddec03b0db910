#include "bench/common/plan.hpp"

#include <gtest/gtest.h>

namespace ferry {
namespace {

const Pace pace{.link_Bps = 10e9,
                .device_Bps = 1000e9,
                .peer_Bps = 100e9,
                .host_Bps = 5e9,
                .wait_s = 10e-6,
                .launch_s = 2e-6,
                .handoff_s = 3e-6,
                .basis = "test"};

TEST(Plan, AFixedRepeatTakesItsWarmUpsAndSamplesOfTimedAndUntimedWork) {
  // 1 GB over the link (0.1 s) and 1 GB checked by the host (0.2 s), 2 + 5 times.
  const PlannedStep step{.what = "x", .repeat = {2, 5, 5, 0}, .sample = {.link_bytes = 1e9, .host_bytes = 1e9}};
  EXPECT_NEAR(estimate_seconds(step, pace), 7 * 0.3, 1e-9);
}

TEST(Plan, ARepeatWithAMinimumTimeSamplesUntilTheTimedPartReachesIt) {
  // 10 us a sample: 0.05 s takes 5000 samples, capped at 50.
  PlannedStep step{.what = "x", .repeat = {2, 5, 50, 0.05}, .sample = {.waits = 1}};
  EXPECT_NEAR(estimate_seconds(step, pace), 52 * 10e-6, 1e-12);
  // 20 ms a sample: the minimum time is reached after 3, so the 5 samples stand.
  step.sample = {.link_bytes = 200e6};
  EXPECT_NEAR(estimate_seconds(step, pace), 7 * 0.02, 1e-9);
  // 4 ms a sample: 13 samples reach 0.05 s.
  step.sample = {.link_bytes = 40e6};
  EXPECT_NEAR(estimate_seconds(step, pace), 15 * 0.004, 1e-9);
}

TEST(Plan, WaitsLaunchesAndHandoffsEachPayTheirOwnPrice) {
  const PlannedStep step{.what = "x", .repeat = {0, 1, 1, 0}, .sample = {.waits = 1, .launches = 10, .handoffs = 100}};
  EXPECT_NEAR(estimate_seconds(step, pace), 10e-6 + 10 * 2e-6 + 100 * 3e-6, 1e-12);
}

TEST(Plan, TrialsSetUpAndCalibratedSamplesAddUp) {
  const PlannedStep step{.what = "x",
                         .repeat = {1, 3, 3, 0},
                         .sample = {.peer_bytes = 1e6, .at_least_s = 1e-3},  // 10 us of copying, calibrated to 1 ms
                         .trials = 3,
                         .setup_host_bytes = 5e9,
                         .setup_s = 0.5};
  EXPECT_NEAR(estimate_seconds(step, pace), 3 * 4 * 1e-3 + 1.0 + 0.5, 1e-9);
}

TEST(Plan, WorkThePaceHasNoRateForCostsNothingRatherThanForever) {
  const PlannedStep step{.what = "x", .repeat = {0, 1, 1, 0}, .sample = {.peer_bytes = 1e9}};
  Pace no_peers = pace;
  no_peers.peer_Bps = 0;
  EXPECT_EQ(estimate_seconds(step, no_peers), 0);
}

}  // namespace
}  // namespace ferry
