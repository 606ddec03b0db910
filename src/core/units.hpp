#pragma once
// Sizes and rates as users write and read them. ferry's sizes are binary for
// K/M/G/T and KiB/MiB/GiB/TiB, decimal for KB/MB/GB/TB; rates are decimal (GB/s = 1e9 B/s).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ferry {

// "4K", "1MiB", "1.5G", "4096" -> bytes. Throws UsageError naming the text when malformed, zero or negative.
std::uint64_t parse_bytes(std::string_view text);

// "4K:1G:x4" (geometric), "4K:64K:+4K" (arithmetic), "4K,1M,16M" (list) or one size -> sizes, ascending.
std::vector<std::uint64_t> parse_byte_range(std::string_view text);

// The same forms for whole numbers >= 1, e.g. --splits 1:256:x2 or --keys 1K:16M:x4
// (K, M and G count in 1024s, as they do for sizes). `what` names the option.
std::vector<std::uint64_t> parse_count_range(std::string_view text, std::string_view what);

// A count that must be a positive integer ("--reps 0" is an error). `what` names the option.
std::int64_t parse_positive_count(std::string_view text, std::string_view what);

// The same for a count kept in an int (--depth, --stages, --reps...): above
// 2^31 - 1 it is refused as too large, not wrapped to a negative number.
int parse_positive_int(std::string_view text, std::string_view what);

// A positive number, e.g. --flops-per-byte 0.5. `what` names the option.
double parse_positive_number(std::string_view text, std::string_view what);

// A share given in percent, above 0% and below 100%: "10%" -> 0.1. `what` names the option.
double parse_percent_share(std::string_view text, std::string_view what);

// "20us", "1.5ms", "500ns", "2s" -> seconds (a unit is required).
double parse_duration(std::string_view text);

// A timeout option (`what` names it): a duration from 1 ms to 1 day, so that
// a wait in nanoseconds neither ends at once nor overflows.
double parse_timeout(std::string_view text, std::string_view what);

// "40GB/s", "40 GB/s", "800MB/s" -> bytes per second (decimal: GB/s = 1e9 B/s).
double parse_rate(std::string_view text);

// A rate to read: GB/s to a tenth, as PCIe and NVLink rates read ("53.5 GB/s"); below 1 GB/s (a network
// link, a limited or broken one) in MB/s ("11.8 MB/s"), where a tenth of a GB/s would read 0.0.
std::string rate_text(double Bps);

// A size, exactly: 4096 -> "4 KiB", 1536 -> "1.5 KiB", 12 -> "12 B", 4099 -> "4099 B".
std::string format_bytes(std::uint64_t bytes);

// How much memory a device or host has (or has free), to three figures:
// "11.8 GiB". An amount to read, not a size a run moves (format_bytes).
std::string format_capacity(std::uint64_t bytes);

constexpr double bytes_per_GB = 1e9;
constexpr double seconds_per_us = 1e-6;

inline double to_GBps(double bytes_per_second) { return bytes_per_second / bytes_per_GB; }
inline double to_us(double seconds) { return seconds / seconds_per_us; }

}  // namespace ferry
