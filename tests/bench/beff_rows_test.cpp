// beff's rows from a record the test writes, not from a run: which repetition
// and which participant each figure takes. HPCC's b(L) is the best
// repetition; a repetition of the ring lasts as long as its slowest device;
// nccl-tests' algbw is the median repetition's; each participant's row is its
// own times; the fitted model stands on the best repetition; the latency is
// participant 0's median over repetitions, per exchange (one way). Every
// table of seconds below is chosen so that any other choice (the worst or the
// median repetition, the fastest device, the slowest device's own best, the
// mean) gives another number.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/beff/beff_run.hpp"
#include "bench/row_params.hpp"
#include "core/units.hpp"

namespace ferry::beff_rows_test {
namespace {

using beff::SizeRecord;
using transport::Kind;

constexpr int participants = 3;
constexpr int repetitions = 5;

// seconds[participant][repetition], each times `unit` seconds.
SizeRecord size_record(std::uint64_t bytes, std::int64_t exchanges, std::string protocol,
                       const std::vector<std::vector<double>>& seconds, double unit) {
  SizeRecord size{bytes, exchanges, std::move(protocol), {}};
  for (std::size_t p = 0; p < seconds.size(); ++p) {
    beff::Samples s{static_cast<int>(p), {}, 0};
    for (double v : seconds[p]) s.seconds.push_back(v * unit);
    size.participants.push_back(std::move(s));
  }
  return size;
}

// Every value in a table differs from every other. 8 B: each repetition's slowest device 9, 8, 14, 6, 7 (participant
// 0, 1, 2, 1, 0), so the best repetition is the fourth (6), the median the second (8), the mean 8.8, the worst 14;
// each repetition's fastest device 4, 2.5, 2, 1.5, 3.5; each device's own best 3, 2 and 1.5.
const std::vector<std::vector<double>> at_8B = {
    {9, 3, 6.5, 4.5, 7},
    {4, 8, 2, 6, 5},
    {5.5, 2.5, 14, 1.5, 3.5},
};
// 2 MiB: slowest 7, 11, 8, 6.5, 9 (participant 1, 2, 0, 0, 1): best the fourth (6.5), median the third (8), mean
// 8.3, worst 11; fastest 2, 3, 1, 4.5, 2.5.
const std::vector<std::vector<double>> at_2MiB = {
    {2, 5, 8, 6.5, 3.5},
    {7, 3, 6, 4.5, 9},
    {4, 11, 1, 5.5, 2.5},
};
// 4 MiB, past the definition's sizes: slowest 12, 10, 8, 13, 9.5 (participant 0, 1, 2, 1, 2): best the third (8),
// median the second (10), mean 10.5, worst 13; fastest 3, 4, 2, 1, 4.5.
const std::vector<std::vector<double>> at_4MiB = {
    {12, 4, 5, 9, 6.5},
    {3, 10, 2, 13, 4.5},
    {7, 6, 8, 1, 9.5},
};
// The ping-pong between participants 0 and 1: participant 0's median 30 (its fourth; mean 38, best 10),
// participant 1's 35; participant 2 takes no part, and its times are the slowest.
const std::vector<std::vector<double>> ping_pong = {
    {40, 10, 90, 30, 20},
    {35, 15, 25, 45, 55},
    {70, 60, 80, 65, 75},
};

constexpr std::uint64_t two_MiB = 2 << 20, four_MiB = 4 << 20;

beff::BeffConfig config() {
  beff::BeffConfig c;
  c.transports = {Kind::mpi_staged};
  c.max_bytes = four_MiB;
  c.repetitions = repetitions;
  c.latency_bytes = 8;
  return c;
}

std::vector<Member> members() {
  std::vector<Member> m;
  for (int p = 0; p < participants; ++p) m.push_back({.participant = p, .device = p, .rank = p, .host = "node"});
  return m;
}

// mpi-staged has no model from link, so its model is the fitted one alone. 8 B and 2 MiB share a protocol (one
// fitted segment through both), 4 MiB has its own (a segment of that size alone).
WorkloadResult scripted_result() {
  beff::TransportRecord record;
  record.kind = Kind::mpi_staged;
  record.clock = transport::Clock::host;
  record.ping_pong = size_record(8, 100, "LL", ping_pong, 1e-6);
  record.sizes = {size_record(8, 1000, "LL", at_8B, 1e-6), size_record(two_MiB, 20, "LL", at_2MiB, 1e-4),
                  size_record(four_MiB, 10, "direct", at_4MiB, 1e-3)};
  return beff::make_result(config(), members(), {record}, {});
}

std::vector<const Row*> rows_of(const WorkloadResult& r, const std::string& section) {
  std::vector<const Row*> rows;
  for (const Row& row : r.rows)
    if (row.section == section) rows.push_back(&row);
  return rows;
}

const Row& ring_row(const WorkloadResult& r, std::uint64_t bytes) {
  for (const Row* row : rows_of(r, "ring"))
    if (text_of(*row, "MSize bytes") == std::to_string(bytes)) return *row;
  throw std::runtime_error("no ring row of " + std::to_string(bytes) + " bytes");
}

const Row& exchange_row(const WorkloadResult& r, int participant, std::uint64_t bytes) {
  for (const Row* row : rows_of(r, "exchange"))
    if (text_of(*row, "participant") == std::to_string(participant) && text_of(*row, "bytes") == std::to_string(bytes))
      return *row;
  throw std::runtime_error("no exchange row");
}

double number(const Row& row, const std::string& key) { return std::get<double>(param(row, key)); }

// The row's samples are `values`, each times `unit` and divided by `per`, as the record's seconds were made.
void expect_samples(const Row& row, const std::vector<double>& values, double unit, double per = 1) {
  ASSERT_EQ(row.seconds.size(), values.size()) << row.section;
  for (std::size_t k = 0; k < values.size(); ++k)
    EXPECT_DOUBLE_EQ(row.seconds[k], values[k] * unit / per) << row.section << " sample " << k;
}

TEST(BeffRows, BOfLIsTheBestRepetitionOfTheRingTimedByItsSlowestDevice) {
  const WorkloadResult r = scripted_result();
  ASSERT_TRUE(r.passed());
  // Each repetition's sample is its slowest device's time.
  expect_samples(ring_row(r, 8), {9, 8, 14, 6, 7}, 1e-6);
  expect_samples(ring_row(r, two_MiB), {7, 11, 8, 6.5, 9}, 1e-4);
  expect_samples(ring_row(r, four_MiB), {12, 10, 8, 13, 9.5}, 1e-3);
  // b(L) = n x L x looplength / the best of those: 6, 6.5 and 8 units; never the worst (14, 11, 13), the fastest
  // device's (1.5, 1, 1) or a device's own best.
  EXPECT_DOUBLE_EQ(ring_row(r, 8).value(), 3.0 * 8 * 1000 / 6e-6);
  EXPECT_DOUBLE_EQ(ring_row(r, two_MiB).value(), 3.0 * two_MiB * 20 / 6.5e-4);
  EXPECT_DOUBLE_EQ(ring_row(r, four_MiB).value(), 3.0 * four_MiB * 10 / 8e-3);
  EXPECT_DOUBLE_EQ(number(ring_row(r, 8), "transfer s"), 6e-6);
  EXPECT_DOUBLE_EQ(number(ring_row(r, two_MiB), "transfer s"), 6.5e-4);
  EXPECT_DOUBLE_EQ(number(ring_row(r, four_MiB), "transfer s"), 8e-3);
  EXPECT_EQ(text_of(ring_row(r, two_MiB), "looplength"), "20");
}

TEST(BeffRows, AlgbwAndBusbwAreTheMedianRepetitionsSlowestDevice) {
  const WorkloadResult r = scripted_result();
  // nccl-tests' sendrecv: bytes one device sends / the median repetition's time (slowest device 8, 8 and 10 units).
  EXPECT_DOUBLE_EQ(number(ring_row(r, 8), "algbw GB/s"), to_GBps(8.0 * 1000 / 8e-6));
  EXPECT_DOUBLE_EQ(number(ring_row(r, two_MiB), "algbw GB/s"), to_GBps(1.0 * two_MiB * 20 / 8e-4));
  EXPECT_DOUBLE_EQ(number(ring_row(r, four_MiB), "algbw GB/s"), to_GBps(1.0 * four_MiB * 10 / 10e-3));
  for (std::uint64_t bytes : {std::uint64_t{8}, two_MiB, four_MiB})
    EXPECT_EQ(number(ring_row(r, bytes), "busbw GB/s"), number(ring_row(r, bytes), "algbw GB/s")) << bytes;
}

TEST(BeffRows, EachParticipantsRowIsItsOwnTimesAndItsOwnBest) {
  const WorkloadResult r = scripted_result();
  ASSERT_EQ(rows_of(r, "exchange").size(), 3u * participants);
  const struct {
    std::uint64_t bytes;
    std::int64_t exchanges;
    const std::vector<std::vector<double>>& seconds;
    double unit;
  } sizes[] = {{8, 1000, at_8B, 1e-6}, {two_MiB, 20, at_2MiB, 1e-4}, {four_MiB, 10, at_4MiB, 1e-3}};
  for (const auto& size : sizes) {
    for (int p = 0; p < participants; ++p) {
      const Row& row = exchange_row(r, p, size.bytes);
      const std::vector<double>& own = size.seconds[static_cast<std::size_t>(p)];
      expect_samples(row, own, size.unit);
      EXPECT_DOUBLE_EQ(row.value(), static_cast<double>(size.bytes) * static_cast<double>(size.exchanges) /
                                        (*std::min_element(own.begin(), own.end()) * size.unit))
          << size.bytes << " participant " << p;
      EXPECT_EQ(text_of(row, "device"), std::to_string(p));
    }
  }
}

TEST(BeffRows, TheFittedModelStandsOnTheBestRepetitionOfEachSize) {
  const WorkloadResult r = scripted_result();
  const auto model = rows_of(r, "model");
  ASSERT_EQ(model.size(), 2u) << "a segment per protocol";
  // LL: through 8 B and 2 MiB at their best repetitions' exchanges, 6e-6 / 1000 and 6.5e-4 / 20 seconds.
  const double small_s = 6e-6 / 1000, large_s = 6.5e-4 / 20;
  const double ll_Bps = (two_MiB - 8.0) / (large_s - small_s);
  EXPECT_NEAR(model[0]->value(), small_s - 8 / ll_Bps, 1e-18);
  EXPECT_NEAR(number(*model[0], "B GB/s"), to_GBps(ll_Bps), 1e-9 * to_GBps(ll_Bps));
  EXPECT_EQ(text_of(*model[0], "up to bytes"), std::to_string(two_MiB));
  // direct: 4 MiB alone, at its best repetition's exchange, 8e-3 / 10 seconds, all of it bandwidth.
  const double direct_Bps = four_MiB / (8e-3 / 10);
  EXPECT_EQ(model[1]->value(), 0);
  EXPECT_NEAR(number(*model[1], "B GB/s"), to_GBps(direct_Bps), 1e-9 * to_GBps(direct_Bps));
  // Each ring row's model is that model's b(L) for the n devices; at the sizes it was fitted through, it is
  // the measured b(L).
  for (std::uint64_t bytes : {std::uint64_t{8}, two_MiB, four_MiB}) {
    const Row& ring = ring_row(r, bytes);
    ASSERT_TRUE(ring.model.has_value());
    EXPECT_NEAR(*ring.model, ring.value(), 1e-9 * ring.value()) << bytes;
    EXPECT_EQ(text_of(ring, "residual (fitted)"), "+0.0%") << bytes;
  }
}

TEST(BeffRows, TheLatencyIsHalfARoundTripParticipantZerosMedianOverRepetitions) {
  const WorkloadResult r = scripted_result();
  const auto latency = rows_of(r, "latency");
  ASSERT_EQ(latency.size(), 1u);
  // Each of the 100 exchanges is one way: participant 0's median 30 us over them.
  expect_samples(*latency.front(), {40, 10, 90, 30, 20}, 1e-6, 100);
  EXPECT_DOUBLE_EQ(latency.front()->value(), 30e-6 / 100);
  EXPECT_EQ(text_of(*rows_of(r, "beff").front(), "one-way us"), "0.30");
}

TEST(BeffRows, BeffIsTheMeanOfBOfLOverTheDefinitionsSizesAlone) {
  const WorkloadResult r = scripted_result();
  const auto beff = rows_of(r, "beff");
  ASSERT_EQ(beff.size(), 1u);
  // 8 B and 2 MiB are of the definition's 21; 4 MiB extends the ring table, not b_eff.
  const double mean = (ring_row(r, 8).value() + ring_row(r, two_MiB).value()) / 2;
  EXPECT_DOUBLE_EQ(beff.front()->value(), mean);
  EXPECT_DOUBLE_EQ(number(*beff.front(), "per device GB/s"), to_GBps(mean / participants));
  EXPECT_EQ(text_of(*beff.front(), "largest bytes"), std::to_string(four_MiB));
  EXPECT_DOUBLE_EQ(number(*beff.front(), "b(largest) per device GB/s"),
                   to_GBps(ring_row(r, four_MiB).value() / participants));
}

}  // namespace
}  // namespace ferry::beff_rows_test
