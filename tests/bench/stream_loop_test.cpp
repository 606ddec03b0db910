// stream's closed loop on a clock the test drives: a chunk's latency runs
// from its own hand-over (its input ready) to its own result being visible,
// never from the pass's first chunk; the pass runs from the first hand-over
// to the last result; the loop keeps `in_flight` chunks out and hands chunk
// c + in_flight over as soon as chunk c is back. Then a point's rows: latency
// over every chunk of every pass, throughput the stream's bytes over each
// pass's wall time (docs/stream.md, "What is measured").
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "bench/stream/stream_model.hpp"
#include "bench/stream/stream_run.hpp"

namespace ferry::stream_loop_test {
namespace {

using stream::Pass;

// Moves only when the test moves it.
struct ScriptedClock {
  std::int64_t now_ns = 0;
  HostClock::time_point now() const { return HostClock::time_point(std::chrono::nanoseconds(now_ns)); }
};

std::vector<double> seconds_of(const std::vector<std::int64_t>& ns) {
  std::vector<double> s;
  for (std::int64_t v : ns) s.push_back(static_cast<double>(v) * 1e-9);
  return s;
}

void expect_seconds(const std::vector<double>& actual, const std::vector<std::int64_t>& ns) {
  const std::vector<double> expected = seconds_of(ns);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t c = 0; c < expected.size(); ++c) EXPECT_NEAR(actual[c], expected[c], 1e-12) << "chunk " << c;
}

TEST(StreamLoop, AChunksLatencyRunsFromItsOwnHandOverToItsOwnResultBeingVisible) {
  ScriptedClock clock;
  // What each hand-over costs the host, and when each chunk's result is there to be seen (chunk 5's is there
  // before the host looks: it is visible when the host sees it, after chunk 4's).
  const std::vector<std::int64_t> hand_over_ns = {1000, 2000, 500, 1500, 700, 300};
  const std::vector<std::int64_t> result_at_ns = {8000, 9500, 30000, 32500, 45000, 40000};
  std::vector<std::int64_t> handed_over_at(6), visible_at(6);
  std::vector<std::string> order;
  const Pass pass = stream::closed_loop(
      6, 2,
      [&](std::uint64_t c) {
        order.push_back("hand over " + std::to_string(c));
        handed_over_at[c] = clock.now_ns;
        clock.now_ns += hand_over_ns[c];
      },
      [&](std::uint64_t c) {
        order.push_back("await " + std::to_string(c));
        clock.now_ns = std::max(clock.now_ns, result_at_ns[c]);
        visible_at[c] = clock.now_ns;
      },
      [&] { return clock.now(); });

  // Two chunks out; chunk c + 2 handed over as soon as chunk c is back; results in order.
  EXPECT_EQ(order,
            (std::vector<std::string>{"hand over 0", "hand over 1", "await 0", "hand over 2", "await 1", "hand over 3",
                                      "await 2", "hand over 4", "await 3", "hand over 5", "await 4", "await 5"}));
  // Handed over at 0, 1000, 8000, 9500, 30000 and 32500 ns; visible at 8000, 9500, 30000, 32500, 45000 and
  // 45000. From the pass's first hand-over they would read 8000, 9500, 30000, 32500, 45000 and 45000; from the
  // end of each hand-over, 7000, 6500, 21500, 21500, 14300 and 12200.
  EXPECT_EQ(handed_over_at, (std::vector<std::int64_t>{0, 1000, 8000, 9500, 30000, 32500}));
  EXPECT_EQ(visible_at, (std::vector<std::int64_t>{8000, 9500, 30000, 32500, 45000, 45000}));
  expect_seconds(pass.latency_s, {8000, 8500, 22000, 23000, 15000, 12500});
  // The pass: first hand-over to the last result visible (from the last hand-over it would be 12500 ns).
  EXPECT_NEAR(pass.wall_s, 45000e-9, 1e-12);
}

TEST(StreamLoop, WithMoreSlotsThanChunksEveryChunkIsHandedOverBeforeTheFirstIsAwaited) {
  ScriptedClock clock;
  std::vector<std::string> order;
  const Pass pass = stream::closed_loop(
      3, 4,
      [&](std::uint64_t c) {
        order.push_back("hand over " + std::to_string(c));
        clock.now_ns += 100;
      },
      [&](std::uint64_t c) {
        order.push_back("await " + std::to_string(c));
        clock.now_ns += 1000;
      },
      [&] { return clock.now(); });
  EXPECT_EQ(order,
            (std::vector<std::string>{"hand over 0", "hand over 1", "hand over 2", "await 0", "await 1", "await 2"}));
  // Handed over at 0, 100, 200; visible at 1300, 2300, 3300.
  expect_seconds(pass.latency_s, {1300, 2200, 3100});
  EXPECT_NEAR(pass.wall_s, 3300e-9, 1e-12);
}

// persistent's own loop hands its times to the same arithmetic.
TEST(StreamLoop, APassFromItsTimesTakesEachChunksOwnHandOverAndTheLastResult) {
  const auto at = [](std::int64_t ns) { return HostClock::time_point(std::chrono::nanoseconds(ns)); };
  // Chunks 0 and 1 seen done at the same poll.
  const Pass pass = stream::pass_of({at(0), at(100), at(250)}, {at(500), at(500), at(900)});
  expect_seconds(pass.latency_s, {500, 400, 650});
  EXPECT_NEAR(pass.wall_s, 900e-9, 1e-12);
}

TEST(StreamLoop, APointsThroughputIsTheStreamsBytesOverEachPassAndItsLatencyEveryChunkOfEveryPass) {
  stream::StreamConfig config;
  config.total_bytes = 1 << 20;
  config.iterations = 3;
  const stream::Point point{stream::Design::chunked, 64 << 10, 2};
  stream::PointMeasurement m;
  // Three passes of three chunks: median 5 us, mean 6.1, best 1, worst 19.
  m.latency_s = {5e-6, 1e-6, 7e-6, 3e-6, 19e-6, 2e-6, 8e-6, 4e-6, 6e-6};
  // A wall time per pass: median 4 ms, mean 5, best 2.
  m.wall_s = {4e-3, 2e-3, 9e-3};
  m.check = Check::passed;
  stream::Prediction model;
  model.latency_s = 1e-6;
  model.throughput_Bps = 1e9;
  const stream::MeasuredPoint rows = stream::point_rows(point, m, config, model);

  EXPECT_EQ(rows.latency.seconds, m.latency_s);
  EXPECT_DOUBLE_EQ(rows.latency.value(), 5e-6);
  EXPECT_DOUBLE_EQ(rows.latency.stats().p99, 19e-6);
  EXPECT_EQ(rows.throughput.seconds, m.wall_s);
  EXPECT_DOUBLE_EQ(rows.throughput.bytes_per_sample, 1 << 20);
  EXPECT_DOUBLE_EQ(rows.throughput.value(), (1 << 20) / 4e-3);
  EXPECT_EQ(rows.throughput.metric, Metric::rate);
  EXPECT_EQ(*rows.latency.model, 1e-6);
  EXPECT_EQ(*rows.throughput.model, 1e9);
}

}  // namespace
}  // namespace ferry::stream_loop_test
