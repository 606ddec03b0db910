#pragma once
// What the vector add can take at best: the serial sum of its steps, and the
// bound of the pipelined version, from link's ceilings and the kernel's rate.
#include <cstdint>
#include <string>

#include "bench/overlap/overlap_split.hpp"

namespace ferry::overlap {

struct Rates {
  double h2d_Bps = 0;
  double d2h_Bps = 0;
  double bidirectional_Bps = 0;  // both directions at once, both counted; 0: not known (pageable memory)
  double kernel_Bps = 0;         // vector bytes (one of a, b, c) added per second on device-resident data
  double copy_latency_s = 0;     // one copy's fixed cost on the device
};

struct Prediction {
  double seconds = 0;
  std::string basis;  // the binding term
};

// H2D of a and b, the add, D2H of c, one after another.
Prediction serial_time(std::uint64_t vector_bytes, const Rates& rates);

// The pipelined lower bound: the busiest stage over the whole vector plus one
// sub-buffer through the other two (the first waits to fill, the last to
// drain), or both copy directions sharing PCIe, whichever is longest.
Prediction pipelined_bound(std::uint64_t vector_bytes, const Split& split, const Rates& rates);

// What the link gives when it shares itself evenly: while c returns, each direction moves at most half of link's
// both-ways rate, then a and b's rest comes in alone at H2D. A prediction from link's figures, not a bound: the
// bound lets the directions split the link as the bytes need (3 x vector / bidirectional). On one H100 the best
// pipelined run came within 0.3-3.6% of this in four runs, where it read 1.10-1.11x the bound.
// Seconds, or 0 when link's both-ways rate is not known (pageable memory).
double shared_link_time(std::uint64_t vector_bytes, const Rates& rates);

}  // namespace ferry::overlap
