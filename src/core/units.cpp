#include "core/units.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <utility>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ferry {
namespace {

struct Suffix {
  std::string_view text;
  double multiplier;
};

// Longest first so that "KiB" is not read as "K" followed by junk.
constexpr Suffix suffixes[] = {
    {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40}, {"KB", 1e3},    {"MB", 1e6},
    {"GB", 1e9},     {"TB", 1e12},    {"Ki", 0x1p10},  {"Mi", 0x1p20},  {"Gi", 0x1p30}, {"Ti", 0x1p40},
    {"K", 0x1p10},   {"M", 0x1p20},   {"G", 0x1p30},   {"T", 0x1p40},   {"B", 1},       {"", 1},
};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The suffix spelled like `unit` (any case), or nullptr.
template <std::size_t N>
const Suffix* find_unit(const Suffix (&units)[N], std::string_view unit) {
  for (const Suffix& s : units)
    if (iequals(s.text, unit)) return &s;
  return nullptr;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

[[noreturn]] void malformed(std::string_view text, std::string_view why) {
  throw UsageError(fmt::format("malformed size '{}': {}", text, why));
}

}  // namespace

std::uint64_t parse_bytes(std::string_view raw) {
  const std::string_view text = trim(raw);
  if (text.empty()) malformed(raw, "it is empty");
  if (text.front() == '-') malformed(raw, "a size must be positive");

  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  if (digits == 0) malformed(raw, "it does not start with a number");

  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || end != text.data() + digits) malformed(raw, "the number is not readable");

  const std::string_view suffix = trim(text.substr(digits));
  const Suffix* match = find_unit(suffixes, suffix);
  if (match == nullptr)
    malformed(raw, fmt::format("unknown unit '{}' (use B, K, M, G, T, KiB.., or KB.. for powers of 1000)", suffix));

  const double bytes = number * match->multiplier;
  if (bytes <= 0) malformed(raw, "a size must be positive");
  if (bytes >= 0x1p63) malformed(raw, "it is too large");
  if (bytes != std::floor(bytes)) malformed(raw, "it is not a whole number of bytes");
  return static_cast<std::uint64_t>(bytes);
}

namespace {

// A list "a,b,c", a range "START:END:xFACTOR" or "START:END:+STEP", or one
// value, each item read by `one`; ascending, without repeats.
// More points than any sweep needs, and few enough that a typo such as
// 1:1T:+1 is refused instead of filling memory.
constexpr std::size_t most_range_values = 4096;

template <class ParseOne>
std::vector<std::uint64_t> parse_range(std::string_view raw, ParseOne one) {
  const std::string_view text = trim(raw);
  std::vector<std::uint64_t> values;
  const auto add = [&](std::uint64_t v) {
    if (values.size() == most_range_values)
      throw UsageError(fmt::format("malformed range '{}': more than {} values", raw, most_range_values));
    values.push_back(v);
  };

  if (text.find(',') != std::string_view::npos) {
    for (std::string_view item : split(text, ',')) add(one(item));
  } else if (const auto first = text.find(':'); first != std::string_view::npos) {
    const auto second = text.find(':', first + 1);
    if (second == std::string_view::npos)
      throw UsageError(fmt::format("malformed range '{}': expected START:END:xFACTOR or START:END:+STEP", raw));
    const std::uint64_t start = one(text.substr(0, first));
    const std::uint64_t end = one(text.substr(first + 1, second - first - 1));
    const std::string_view step = trim(text.substr(second + 1));
    if (end < start) throw UsageError(fmt::format("malformed range '{}': the end is below the start", raw));
    if (step.size() < 2 || (step.front() != 'x' && step.front() != '+'))
      throw UsageError(fmt::format("malformed range '{}': the step '{}' must be xFACTOR or +STEP", raw, step));
    if (step.front() == 'x') {
      std::uint64_t factor = 0;
      const auto [p, ec] = std::from_chars(step.data() + 1, step.data() + step.size(), factor);
      if (ec != std::errc() || p != step.data() + step.size() || factor < 2)
        throw UsageError(fmt::format("malformed range '{}': the factor must be a whole number >= 2", raw));
      for (std::uint64_t v = start; v <= end; v *= factor) {
        add(v);
        if (v > end / factor) break;
      }
    } else {
      const std::uint64_t increment = one(step.substr(1));
      for (std::uint64_t v = start; v <= end; v += increment) add(v);
    }
  } else {
    add(one(text));
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

}  // namespace

std::vector<std::uint64_t> parse_byte_range(std::string_view raw) {
  return parse_range(raw, [](std::string_view item) { return parse_bytes(item); });
}

namespace {

// "16", "1K", "16M": a whole number >= 1, K/M/G counting in 1024s.
std::uint64_t parse_scaled_count(std::string_view raw, std::string_view what) {
  std::string_view text = trim(raw);
  std::uint64_t scale = 1;
  if (!text.empty()) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K': scale = 1ull << 10; break;
      case 'M': scale = 1ull << 20; break;
      case 'G': scale = 1ull << 30; break;
      default: break;
    }
    if (scale > 1) text.remove_suffix(1);
  }
  const auto value = static_cast<std::uint64_t>(parse_positive_count(text, what));
  if (value > std::numeric_limits<std::uint64_t>::max() / scale)
    throw UsageError(fmt::format("{} '{}' is too large", what, raw));
  return value * scale;
}

}  // namespace

std::vector<std::uint64_t> parse_count_range(std::string_view raw, std::string_view what) {
  return parse_range(raw, [what](std::string_view item) { return parse_scaled_count(item, what); });
}

std::int64_t parse_positive_count(std::string_view raw, std::string_view what) {
  const std::string_view text = trim(raw);
  std::int64_t value = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || p != text.data() + text.size())
    throw UsageError(fmt::format("{} must be a whole number, not '{}'", what, raw));
  if (value <= 0) throw UsageError(fmt::format("{} must be at least 1, not {}", what, value));
  return value;
}

namespace {

// Splits "1.5ms" into 1.5 and "ms"; throws naming `kind` when no number leads.
std::pair<double, std::string_view> number_and_unit(std::string_view raw, std::string_view kind) {
  const std::string_view text = trim(raw);
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (digits == 0 || ec != std::errc() || end != text.data() + digits)
    throw UsageError(fmt::format("malformed {} '{}': it does not start with a number", kind, raw));
  if (number <= 0) throw UsageError(fmt::format("malformed {} '{}': it must be positive", kind, raw));
  return {number, trim(text.substr(digits))};
}

}  // namespace

int parse_positive_int(std::string_view raw, std::string_view what) {
  const std::int64_t value = parse_positive_count(raw, what);
  if (value > std::numeric_limits<int>::max()) throw UsageError(fmt::format("{} {} is too large", what, raw));
  return static_cast<int>(value);
}

double parse_positive_number(std::string_view raw, std::string_view what) {
  const std::string_view text = trim(raw);
  double value = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    throw UsageError(fmt::format("{} must be a number, not '{}'", what, raw));
  if (!(value > 0) || !std::isfinite(value)) throw UsageError(fmt::format("{} must be positive, not {}", what, raw));
  return value;
}

double parse_percent_share(std::string_view raw, std::string_view what) {
  const std::string_view text = trim(raw);
  double percent = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), percent);
  if (text.empty() || ec != std::errc() || std::string_view(p, text.data() + text.size()) != "%")
    throw UsageError(fmt::format("{} must be a percentage such as 10%, not '{}'", what, raw));
  if (!(percent > 0 && percent < 100))
    throw UsageError(fmt::format("{} must be above 0% and below 100%, not {}", what, raw));
  return percent / 100;
}

double parse_duration(std::string_view raw) {
  constexpr Suffix units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  const auto [number, unit] = number_and_unit(raw, "duration");
  const Suffix* match = find_unit(units, unit);
  if (match == nullptr)
    throw UsageError(fmt::format("malformed duration '{}': give a unit: ns, us, ms or s (e.g. 20us)", raw));
  return number * match->multiplier;
}

double parse_timeout(std::string_view raw, std::string_view what) {
  const double seconds = parse_duration(raw);
  if (seconds < 1e-3 || seconds > 86400)
    throw UsageError(fmt::format("{} {} is out of range: give 1ms to 86400s (a day), e.g. 30s", what, raw));
  return seconds;
}

double parse_rate(std::string_view raw) {
  constexpr Suffix units[] = {{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}};
  const auto [number, unit] = number_and_unit(raw, "rate");
  const Suffix* match = find_unit(units, unit);
  if (match == nullptr)
    throw UsageError(fmt::format("malformed rate '{}': give a unit: B/s, KB/s, MB/s, GB/s or TB/s (e.g. 40GB/s)", raw));
  return number * match->multiplier;
}

std::string rate_text(double Bps) {
  if (Bps < 1e9) return fmt::format("{:.1f} MB/s", Bps / 1e6);
  return fmt::format("{:.1f} GB/s", Bps / bytes_per_GB);
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr std::string_view units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(units) && bytes >> (10 * (unit + 1)) != 0) ++unit;
  // A size is printed exactly: in its unit where eighths of it say it (1.5 KiB,
  // 1.125 KiB), else in bytes (4099 B, not a rounded "4 KiB").
  const std::uint64_t eighth = (1ull << (10 * unit)) / 8;
  if (unit == 0 || bytes % eighth != 0) return fmt::format("{} B", bytes);
  return fmt::format("{} {}", static_cast<double>(bytes) / static_cast<double>(1ull << (10 * unit)), units[unit]);
}

std::string format_capacity(std::uint64_t bytes) {
  constexpr std::string_view units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return value >= 100 ? fmt::format("{:.0f} {}", value, units[unit]) : fmt::format("{:.3g} {}", value, units[unit]);
}

}  // namespace ferry
