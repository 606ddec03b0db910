#include "bench/overlap/overlap_model.hpp"

#include <algorithm>

namespace ferry::overlap {

Prediction serial_time(std::uint64_t vector_bytes, const Rates& r) {
  const auto B = static_cast<double>(vector_bytes);
  return {2 * B / r.h2d_Bps + B / r.kernel_Bps + B / r.d2h_Bps + 3 * r.copy_latency_s,
          "2 x vector / H2D + add + vector / D2H"};
}

Prediction pipelined_bound(std::uint64_t vector_bytes, const Split& split, const Rates& r) {
  const auto B = static_cast<double>(vector_bytes);
  const std::uint64_t largest_words =
      std::max_element(split.parts.begin(), split.parts.end(), [](const SubBuffer& x, const SubBuffer& y) {
        return x.count < y.count;
      })->count;
  const double p = 4.0 * static_cast<double>(largest_words);
  // One sub-buffer's time in each stage, and the whole vector's.
  const double h = 2 * p / r.h2d_Bps + r.copy_latency_s, x = p / r.kernel_Bps, d = p / r.d2h_Bps + r.copy_latency_s;
  const double H = 2 * B / r.h2d_Bps, X = B / r.kernel_Bps, D = B / r.d2h_Bps;

  Prediction best{H + x + d, "H2D of a and b + one sub-buffer's add and D2H"};
  auto consider = [&](double seconds, const char* basis) {
    if (seconds > best.seconds) best = {seconds, basis};
  };
  consider(h + X + d, "add + one sub-buffer's H2D and D2H");
  consider(h + x + D, "D2H of c + one sub-buffer's H2D and add");
  if (r.bidirectional_Bps > 0) consider(3 * B / r.bidirectional_Bps, "PCIe both ways: 3 x vector / bidirectional");
  return best;
}

double shared_link_time(std::uint64_t vector_bytes, const Rates& r) {
  if (r.bidirectional_Bps <= 0) return 0;
  const auto B = static_cast<double>(vector_bytes);
  const double in_Bps = std::min(r.h2d_Bps, r.bidirectional_Bps / 2),
               out_Bps = std::min(r.d2h_Bps, r.bidirectional_Bps / 2);
  const double both = B / out_Bps;  // c's return, with a and b coming in beside it
  return both + std::max(0.0, 2 * B - in_Bps * both) / r.h2d_Bps;
}

}  // namespace ferry::overlap
