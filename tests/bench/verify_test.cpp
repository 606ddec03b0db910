#include "bench/common/verify.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/emu/emu_backend.hpp"
#include "bench/common/measure.hpp"
#include "bench/common/pattern.hpp"

namespace ferry {
namespace {

TEST(Pattern, NeverZeroAndDiffersBetweenWordsAndSeeds) {
  EXPECT_NE(pattern_word(0, 0), 0u);
  EXPECT_NE(pattern_word(0, 1), pattern_word(1, 1));
  EXPECT_NE(pattern_word(5, 1), pattern_word(5, 2));
}

class Checker : public ::testing::TestWithParam<MemoryKind> {};

TEST_P(Checker, FindsEveryKindOfWrongByte) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  PatternChecker checker(backend);
  constexpr std::size_t bytes = 4099;  // a partial last word
  Buffer buffer =
      GetParam() == MemoryKind::device ? backend.allocate_device(0, bytes) : backend.allocate_host(GetParam(), bytes);
  checker.poison(*stream, buffer);
  EXPECT_FALSE(checker.matches(*stream, buffer, 7)) << "a poisoned buffer passed";
  checker.fill(*stream, buffer, 7);
  EXPECT_EQ(checker.mismatches(*stream, buffer, 7), 0u);
  EXPECT_FALSE(checker.matches(*stream, buffer, 8)) << "another seed's data passed";
  buffer.data()[bytes - 1] ^= std::byte{1};  // the last, partial word
  EXPECT_EQ(checker.mismatches(*stream, buffer, 7), 1u);
  buffer.data()[bytes - 1] ^= std::byte{1};
  buffer.data()[100] ^= std::byte{0x80};
  EXPECT_EQ(checker.mismatches(*stream, buffer, 7), 1u);
}

// Each word alone, odd and even indexes, the first and the last (a whole word, then a partial one), each
// time a different byte of it: a checker that skipped every other word, started a word late or stopped
// one short would miss one of them.
TEST_P(Checker, FindsAWrongWordAtEveryIndexTheFirstAndTheLastIncluded) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  PatternChecker checker(backend);
  for (const std::size_t bytes : {std::size_t{37 * 8}, std::size_t{37 * 8 + 3}}) {
    Buffer buffer =
        GetParam() == MemoryKind::device ? backend.allocate_device(0, bytes) : backend.allocate_host(GetParam(), bytes);
    checker.fill(*stream, buffer, 11);
    ASSERT_EQ(checker.mismatches(*stream, buffer, 11), 0u);
    const std::size_t words = (bytes + 7) / 8;
    for (std::size_t w = 0; w < words; ++w) {
      const std::size_t at = std::min(bytes - 1, w * 8 + w % 8);
      buffer.data()[at] ^= std::byte{0x10};
      EXPECT_EQ(checker.mismatches(*stream, buffer, 11), 1u)
          << "word " << w << " of " << words << ", " << bytes << " B";
      buffer.data()[at] ^= std::byte{0x10};
    }
    buffer.data()[0] ^= std::byte{1};
    buffer.data()[bytes - 1] ^= std::byte{1};
    EXPECT_EQ(checker.mismatches(*stream, buffer, 11), 2u) << "the first and the last word at once";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryMemory, Checker,
                         ::testing::Values(MemoryKind::device, MemoryKind::pinned, MemoryKind::pageable,
                                           MemoryKind::mapped),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(Pattern, LargeHostBuffersAreCheckedOnSeveralThreadsWithTheSameAnswer) {
  std::vector<std::uint64_t> words((64ull << 20) / 8);
  fill_pattern_on_host(words.data(), words.size() * 8, 3);
  EXPECT_EQ(count_mismatches_on_host(words.data(), words.size() * 8, 3), 0u);
  words[words.size() / 3] = 0;
  words.back() = 0;
  EXPECT_EQ(count_mismatches_on_host(words.data(), words.size() * 8, 3), 2u);
}

// The host's threads each check a share of the words: a wrong word at either end of the buffer, at an
// odd and an even index, and on either side of the middle (where two threads' shares meet) is found.
TEST(Pattern, LargeHostBuffersFindAWrongWordAtEitherEndAndAtOddAndEvenIndexes) {
  std::vector<std::uint64_t> words((64ull << 20) / 8);
  fill_pattern_on_host(words.data(), words.size() * 8, 5);
  const std::size_t n = words.size();
  for (const std::size_t w : {std::size_t{0}, std::size_t{1}, std::size_t{2}, n / 2 - 1, n / 2, n - 2, n - 1}) {
    words[w] ^= 1ull << 40;
    EXPECT_EQ(count_mismatches_on_host(words.data(), n * 8, 5), 1u) << "word " << w << " of " << n;
    words[w] ^= 1ull << 40;
  }
}

TEST(Measure, EverySampleIsCheckedAndOneBadSampleFailsTheRow) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  int checks = 0;
  Trial trial{.prepare = {},
              .enqueue = [](Stream& s) { s.enqueue_host([] {}); },
              .check = [&] { return ++checks != 3; }};
  const Measurement m =
      time_on_device(backend, *stream, Repeat{.warmup = 1, .min_samples = 5, .max_samples = 5}, trial);
  EXPECT_EQ(m.seconds.size(), 5u);
  EXPECT_EQ(checks, 5);
  EXPECT_EQ(m.check, Check::failed);
}

// A trial whose samples last what the test says, whatever the machine: each call of time_one (warm-ups too)
// takes the next of `seconds`, the last one again once they run out.
struct ScriptedTrial {
  std::vector<double> seconds;
  std::size_t calls = 0;

  CustomTrial trial() {
    return {.time_one = [this] { return seconds.at(std::min(calls++, seconds.size() - 1)); }};
  }
};

TEST(Measure, SamplesUntilEnoughTimeWasMeasured) {
  // A warm-up of 100 s, which must not count; then the samples reach 1 s with the fifth, exactly.
  ScriptedTrial scripted{.seconds = {100, 0.25, 0.25, 0.125, 0.125, 0.25, 0.25}};
  const Measurement m =
      time_custom(Repeat{.warmup = 1, .min_samples = 2, .max_samples = 50, .min_seconds = 1}, scripted.trial());
  EXPECT_EQ(m.seconds, (std::vector<double>{0.25, 0.25, 0.125, 0.125, 0.25}))
      << "the fourth sample's sum, 0.75 s, is short of 1 s; the fifth's reaches it";
  EXPECT_EQ(scripted.calls, 6u) << "one warm-up and five samples: none past the one that reached the time";
  EXPECT_EQ(m.check, Check::not_applicable);
}

TEST(Measure, TakesTheFewestSamplesEvenWhenTheFirstIsLongEnough) {
  ScriptedTrial scripted{.seconds = {5}};
  const Measurement m =
      time_custom(Repeat{.warmup = 0, .min_samples = 3, .max_samples = 50, .min_seconds = 1}, scripted.trial());
  EXPECT_EQ(m.seconds.size(), 3u);
}

TEST(Measure, NeverSamplesPastTheMost) {
  ScriptedTrial scripted{.seconds = {1e-6}};
  const Measurement m =
      time_custom(Repeat{.warmup = 2, .min_samples = 5, .max_samples = 50, .min_seconds = 1}, scripted.trial());
  EXPECT_EQ(m.seconds.size(), 50u) << "50 us of 1 s measured: the most samples, and no more";
  EXPECT_EQ(scripted.calls, 52u);
}

// The rule for any durations: at least the fewest samples, at most the most, and past the
// fewest, sampling stops with the sample whose sum first reaches the minimum time.
TEST(Measure, StopsWithTheSampleThatReachesTheMinimumTimeForAnyDurations) {
  const Repeat repeat{.warmup = 0, .min_samples = 3, .max_samples = 40, .min_seconds = 0.1};
  std::uint64_t state = 1;
  for (int script = 0; script < 200; ++script) {
    ScriptedTrial scripted;
    for (int i = 0; i < 60; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      scripted.seconds.push_back(static_cast<double>(state >> 40) / static_cast<double>(1ull << 24) * 0.03);
    }
    const Measurement m = time_custom(repeat, scripted.trial());
    const std::size_t n = m.seconds.size();
    ASSERT_GE(n, 3u);
    ASSERT_LE(n, 40u);
    double before_last = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) before_last += m.seconds[i];
    const double all = before_last + m.seconds.back();
    if (n > 3) EXPECT_LT(before_last, repeat.min_seconds) << "script " << script << ": a sample past the time";
    if (n < 40) EXPECT_GE(all, repeat.min_seconds) << "script " << script << ": stopped short of the time";
  }
}

}  // namespace
}  // namespace ferry
