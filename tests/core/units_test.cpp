#include "core/units.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace ferry {
namespace {

TEST(Units, SizesWithBinarySuffixesArePowersOf1024) {
  EXPECT_EQ(parse_bytes("4K"), 4096u);
  EXPECT_EQ(parse_bytes("1MiB"), 1u << 20);
  EXPECT_EQ(parse_bytes("1G"), 1ull << 30);
  EXPECT_EQ(parse_bytes("2gib"), 2ull << 30);
  EXPECT_EQ(parse_bytes("1.5K"), 1536u);
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("12B"), 12u);
}

TEST(Units, SizesWithDecimalSuffixesArePowersOf1000) {
  EXPECT_EQ(parse_bytes("1KB"), 1000u);
  EXPECT_EQ(parse_bytes("3MB"), 3'000'000u);
}

TEST(Units, MalformedSizesAreOneClearError) {
  for (const char* bad : {"12QB", "", "abc", "-4K", "0", "0K", "1.3B", "K", "4K4", "99999999999T"}) {
    try {
      parse_bytes(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Units, GeometricRangeIncludesBothEnds) {
  EXPECT_EQ(parse_byte_range("4K:1G:x4").size(), 10u);
  EXPECT_EQ(parse_byte_range("4K:1G:x4").front(), 4096u);
  EXPECT_EQ(parse_byte_range("4K:1G:x4").back(), 1ull << 30);
  EXPECT_EQ(parse_byte_range("4:1M:x4").size(), 10u);
}

TEST(Units, ArithmeticRangesAndListsAreSortedAndUnique) {
  EXPECT_EQ(parse_byte_range("4K:16K:+4K"), (std::vector<std::uint64_t>{4096, 8192, 12288, 16384}));
  EXPECT_EQ(parse_byte_range("1M,4K,1M"), (std::vector<std::uint64_t>{4096, 1 << 20}));
  EXPECT_EQ(parse_byte_range("64K"), (std::vector<std::uint64_t>{65536}));
}

TEST(Units, MalformedRangesAreRejected) {
  for (const char* bad : {"4K:1G", "1G:4K:x2", "4K:1G:x1", "4K:1G:y4", "4K:1G:x", "4K,,1M", "4K:1G:+0"}) {
    EXPECT_THROW(parse_byte_range(bad), UsageError) << bad;
  }
}

TEST(Units, CountsMustBePositiveWholeNumbers) {
  EXPECT_EQ(parse_positive_count("10000", "--round-trips"), 10000);
  EXPECT_THROW(parse_positive_count("0", "--round-trips"), UsageError);
  EXPECT_THROW(parse_positive_count("-3", "--round-trips"), UsageError);
  EXPECT_THROW(parse_positive_count("1.5", "--round-trips"), UsageError);
  EXPECT_THROW(parse_positive_count("many", "--round-trips"), UsageError);
}

TEST(Units, CountRangesTakeTheSizeRangeFormsForWholeNumbers) {
  EXPECT_EQ(parse_count_range("1:256:x2", "--splits"), (std::vector<std::uint64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(parse_count_range("64,1,8", "--splits"), (std::vector<std::uint64_t>{1, 8, 64}));
  EXPECT_EQ(parse_count_range("2:8:+3", "--splits"), (std::vector<std::uint64_t>{2, 5, 8}));
  EXPECT_EQ(parse_count_range("1K:16M:x4", "--keys"),
            (std::vector<std::uint64_t>{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24}))
      << "K and M count in 1024s";
  EXPECT_EQ(parse_count_range("32k", "--keys"), (std::vector<std::uint64_t>{32768}));
  for (const char* bad : {"0", "1:4", "4:1:x2", "1:8:x1", "2KB", "K", "0K", "1,,2", "99999999999G"})
    EXPECT_THROW(parse_count_range(bad, "--splits"), UsageError) << bad;
}

TEST(Units, BytesAreFormattedForPeople) {
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(12), "12 B");
  EXPECT_EQ(format_bytes(1ull << 30), "1 GiB");
}

// topo's irregular sizes (4099 B, 16411 B, ...) sit just past a whole KiB: a rounded figure would hide the odd bytes.
TEST(Units, ASizeThatIsNoShortMultipleOfItsUnitIsPrintedInBytesExactly) {
  EXPECT_EQ(format_bytes(4099), "4099 B");
  EXPECT_EQ(format_bytes(1001), "1001 B");
  EXPECT_EQ(format_bytes(1048583), "1048583 B");
  EXPECT_EQ(format_bytes(268435399), "268435399 B");
  EXPECT_EQ(format_bytes(1000000), "1000000 B");  // 976.5625 KiB
  EXPECT_EQ(format_bytes(1280), "1.25 KiB");
  EXPECT_EQ(format_bytes(1152), "1.125 KiB");
  EXPECT_EQ(format_bytes(3ull << 29), "1.5 GiB");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(5ull << 40), "5 TiB");
  EXPECT_EQ(format_bytes(1ull << 53), "8192 TiB");
  EXPECT_EQ(format_bytes((1ull << 20) - 128), "1023.875 KiB");
}

TEST(Units, AnAmountOfMemoryIsPrintedToThreeFigures) {
  EXPECT_EQ(format_capacity(12671234048), "11.8 GiB");
  EXPECT_EQ(format_capacity(85045133312), "79.2 GiB");
  EXPECT_EQ(format_capacity((1ull << 20) - 100), "1024 KiB");
  EXPECT_EQ(format_capacity(4096), "4 KiB");
}

TEST(Units, DurationsNeedAUnit) {
  EXPECT_DOUBLE_EQ(parse_duration("20us"), 20e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration("500 ns"), 500e-9);
  EXPECT_DOUBLE_EQ(parse_duration("2s"), 2);
  EXPECT_THROW(parse_duration("20"), UsageError);
  EXPECT_THROW(parse_duration("20 parsecs"), UsageError);
  EXPECT_THROW(parse_duration("-3us"), UsageError);
  EXPECT_THROW(parse_duration("0us"), UsageError);
}

TEST(Units, RatesAreDecimalBytesPerSecond) {
  EXPECT_DOUBLE_EQ(parse_rate("40GB/s"), 40e9);
  EXPECT_DOUBLE_EQ(parse_rate("800 MB/s"), 800e6);
  EXPECT_THROW(parse_rate("40G"), UsageError);
  EXPECT_THROW(parse_rate("fast"), UsageError);
}

TEST(Units, PositiveNumbersRejectZeroNegativeAndJunk) {
  EXPECT_DOUBLE_EQ(parse_positive_number("0.5", "--x"), 0.5);
  EXPECT_THROW(parse_positive_number("0", "--x"), UsageError);
  EXPECT_THROW(parse_positive_number("-1", "--x"), UsageError);
  EXPECT_THROW(parse_positive_number("1e", "--x"), UsageError);
  EXPECT_THROW(parse_positive_number("nan", "--x"), UsageError);
}

TEST(Units, APercentShareIsAboveZeroAndBelowAHundredWithItsSign) {
  EXPECT_DOUBLE_EQ(parse_percent_share("10%", "--x"), 0.1);
  EXPECT_DOUBLE_EQ(parse_percent_share(" 2.5% ", "--x"), 0.025);
  for (const char* bad : {"10", "0.1", "10 %", "%", "lots", "0%", "100%", "-5%", "nan%"}) {
    try {
      parse_percent_share(bad, "--baseline-margin");
      ADD_FAILURE() << bad << " was taken";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--baseline-margin"), std::string::npos) << e.what();
    }
  }
}

TEST(Units, ARangeOfMoreThan4096ValuesIsRefusedNotAllocated) {
  EXPECT_EQ(parse_byte_range("1:4096:+1").size(), 4096u);
  EXPECT_THROW(parse_byte_range("1:1T:+1"), UsageError);  // 2^40 sizes
  EXPECT_THROW(parse_count_range("1:8G:+1", "--keys"), UsageError);
}

TEST(Units, AnIntCountAbove2To31IsRefusedNotWrappedNegative) {
  EXPECT_EQ(parse_positive_int("2147483647", "--depth"), 2147483647);
  EXPECT_THROW(parse_positive_int("2147483648", "--depth"), UsageError);
  EXPECT_THROW(parse_positive_int("4294967297", "--depth"), UsageError);
}

// The bounds the message gives are the bounds parse_timeout takes: each is accepted, and past each is refused.
TEST(Units, ATimeoutsRangeIsTheOneItsMessageGives) {
  std::string message;
  try {
    parse_timeout("86401s", "--timeout");
    FAIL() << "86401s accepted";
  } catch (const UsageError& e) {
    message = e.what();
  }
  const auto give = message.find("give ");
  const auto to = message.find(" to ", give);
  ASSERT_NE(give, std::string::npos) << message;
  ASSERT_NE(to, std::string::npos) << message;
  const std::string lowest = message.substr(give + 5, to - give - 5);
  const std::string highest = message.substr(to + 4, message.find_first_of(" (,", to + 4) - to - 4);
  EXPECT_EQ(lowest, "1ms") << message;
  EXPECT_DOUBLE_EQ(parse_timeout(lowest, "--timeout"), 1e-3) << message;
  EXPECT_DOUBLE_EQ(parse_timeout(highest, "--timeout"), 86400) << message;
  EXPECT_THROW(parse_timeout("0.999ms", "--timeout"), UsageError);
  EXPECT_THROW(parse_timeout("86400.001s", "--timeout"), UsageError);
}

TEST(Units, TimeoutsRunFromOneMillisecondToOneDay) {
  EXPECT_DOUBLE_EQ(parse_timeout("30s", "--timeout"), 30);
  EXPECT_DOUBLE_EQ(parse_timeout("1ms", "--timeout"), 1e-3);
  EXPECT_THROW(parse_timeout("999us", "--timeout"), UsageError);
  EXPECT_THROW(parse_timeout("25h", "--timeout"), UsageError);  // no unit h: malformed
  EXPECT_THROW(parse_timeout("86401s", "--timeout"), UsageError);
}

}  // namespace
}  // namespace ferry
