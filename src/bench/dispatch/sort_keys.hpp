#pragma once
// The keys every rung sorts, fresh for each timed run, and the answer they
// are checked against.
#include <cstdint>
#include <vector>

namespace ferry::dispatch {

// Draw `draw` of `count` keys: 32-bit values over the whole range, except one
// in eight taken from 64 small values, so that every sort meets duplicates.
void fill_keys(std::uint32_t* keys, std::uint64_t count, std::uint64_t draw);

// The keys as std::sort orders them (sorted in pieces on the host's cores, then merged).
std::vector<std::uint32_t> sorted_reference(const std::uint32_t* keys, std::uint64_t count);

// Whether `out` holds the keys of `in` as std::sort orders them. Being sorted is
// not enough: an output that lost, gained or changed keys may still be sorted,
// as is the poison an output starts as.
bool holds_the_input_sorted(const std::uint32_t* in, const std::uint32_t* out, std::uint64_t count);

}  // namespace ferry::dispatch
