#include "bench/common/verify.hpp"

#include <gtest/gtest.h>

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
  Buffer buffer = GetParam() == MemoryKind::device ? backend.allocate_device(0, bytes)
                                                   : backend.allocate_host(GetParam(), bytes);
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

TEST(Measure, EverySampleIsCheckedAndOneBadSampleFailsTheRow) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  int checks = 0;
  Trial trial{.prepare = {}, .enqueue = [](Stream& s) { s.enqueue_host([] {}); }, .check = [&] { return ++checks != 3; }};
  const Measurement m = time_on_device(backend, *stream, Repeat{.warmup = 1, .min_samples = 5, .max_samples = 5}, trial);
  EXPECT_EQ(m.seconds.size(), 5u);
  EXPECT_EQ(checks, 5);
  EXPECT_EQ(m.check, Check::failed);
}

TEST(Measure, SamplesUntilEnoughTimeWasMeasured) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  Trial trial{.enqueue = [](Stream& s) { s.enqueue_host([] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }); }};
  const Measurement m = time_on_host(*stream, Repeat{.warmup = 0, .min_samples = 2, .max_samples = 50, .min_seconds = 0.02}, trial);
  EXPECT_GE(m.seconds.size(), 5u);
  EXPECT_LE(m.seconds.size(), 11u);
  EXPECT_EQ(m.check, Check::not_applicable);
}

}  // namespace
}  // namespace ferry
