// One size of beff's ring on a transport whose seconds the test scripts while
// the emulator moves and checks every message: each participant's samples are
// its own seconds, repetition by repetition, never another participant's; and
// every repetition's messages are checked, the last as much as the first.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "backend/emu/emu_backend.hpp"
#include "bench/beff/beff_run.hpp"
#include "bench/scripted_seconds.hpp"

namespace ferry::beff_measure_test {
namespace {

using transport::Kind;
using transport::Pattern;

constexpr std::uint64_t message_bytes = 4096;

beff::BeffConfig config() {
  beff::BeffConfig c;
  c.transports = {Kind::p2p_ce};
  c.repetitions = 4;
  c.min_time_s = 2e-3;
  return c;
}

// Call 0 is the warm-up, call 1 the looplength's calibration (its slowest, 1 ms, is past --min-time / 8 at
// once); then a call per repetition, each participant's seconds different from every other's.
std::vector<std::vector<double>> script() {
  return in_us({{100, 120, 110}, {1000, 900, 800}, {5, 9, 2}, {7, 3, 8}, {4, 6, 1}, {10, 1.5, 6.5}});
}

std::uint64_t wrong_words(const beff::SizeRecord& record) {
  return std::accumulate(record.participants.begin(), record.participants.end(), std::uint64_t{0},
                         [](std::uint64_t sum, const beff::Samples& s) { return sum + s.wrong_words; });
}

beff::SizeRecord measured(const beff::BeffConfig& c) {
  emu::EmuBackend backend;
  ExchangeAreas areas(backend, {0, 1, 2}, 0, 3, 1 << 20, message_bytes);
  ScriptedSeconds moving(transport::open(Kind::p2p_ce, backend, world(), areas.group(), c.transport), script());
  beff::SizeRecord record = beff::measure_size(moving, world(), areas, c, Pattern::ring, message_bytes);
  EXPECT_EQ(moving.calls(), script().size());
  return record;
}

TEST(BeffMeasure, EachParticipantsSamplesAreItsOwnSecondsOfEveryRepetition) {
  const beff::SizeRecord record = measured(config());
  ASSERT_EQ(record.participants.size(), 3u);
  const std::vector<std::vector<double>> own = in_us({{5, 7, 4, 10}, {9, 3, 6, 1.5}, {2, 8, 1, 6.5}});
  for (std::size_t p = 0; p < own.size(); ++p) {
    EXPECT_EQ(record.participants[p].participant, static_cast<int>(p));
    EXPECT_EQ(record.participants[p].seconds, own[p]) << "participant " << p;
  }
  EXPECT_EQ(wrong_words(record), 0u);
}

TEST(BeffMeasure, EveryRepetitionsMessagesAreCheckedTheLastAsMuchAsTheFirst) {
  for (int repetition : {0, 2, 3}) {
    beff::BeffConfig c = config();
    c.corrupt_bytes = message_bytes;
    c.corrupt_repetition = repetition;
    EXPECT_EQ(wrong_words(measured(c)), 1u) << "repetition " << repetition + 1 << " of 4";
  }
}

}  // namespace
}  // namespace ferry::beff_measure_test
