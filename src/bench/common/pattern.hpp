#pragma once
// The data every copy moves: a seeded pattern that differs at every 8-byte
// word, so a missed, shifted or stale copy cannot match. One FERRY_HD body
// fills and checks it on the GPU and on the host.
#include <cstdint>

#include "backend/hd.hpp"

namespace ferry {

FERRY_HD inline std::uint64_t pattern_word(std::uint64_t word_index, std::uint64_t seed) {
  // splitmix64 of (seed, index): never the same word twice in a buffer, and never all zeros.
  std::uint64_t z = seed + (word_index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Byte `i` of the pattern: byte i % 8 of word i / 8, little-endian.
FERRY_HD inline unsigned char pattern_byte(std::uint64_t i, std::uint64_t seed) {
  return static_cast<unsigned char>(pattern_word(i / 8, seed) >> (8 * (i % 8)));
}

// Writes word `w` of the pattern (the last word may be partial).
struct FillPattern {
  unsigned char* data;
  std::uint64_t bytes;
  std::uint64_t seed;

  FERRY_HD void operator()(std::int64_t w) const {
    const std::uint64_t first = static_cast<std::uint64_t>(w) * 8;
    if (first + 8 <= bytes) {
      reinterpret_cast<std::uint64_t*>(data)[w] = pattern_word(static_cast<std::uint64_t>(w), seed);
    } else {
      for (std::uint64_t i = first; i < bytes; ++i) data[i] = pattern_byte(i, seed);
    }
  }
};

// Adds one to *mismatches for every word of the buffer that is not the pattern.
struct CountMismatches {
  const unsigned char* data;
  std::uint64_t bytes;
  std::uint64_t seed;
  unsigned long long* mismatches;

  FERRY_HD void operator()(std::int64_t w) const {
    const std::uint64_t first = static_cast<std::uint64_t>(w) * 8;
    bool same = true;
    if (first + 8 <= bytes) {
      same = reinterpret_cast<const std::uint64_t*>(data)[w] == pattern_word(static_cast<std::uint64_t>(w), seed);
    } else {
      for (std::uint64_t i = first; i < bytes; ++i) same = same && data[i] == pattern_byte(i, seed);
    }
    if (!same) add_relaxed(mismatches, 1);
  }
};

inline std::int64_t pattern_words(std::uint64_t bytes) { return static_cast<std::int64_t>((bytes + 7) / 8); }

}  // namespace ferry
