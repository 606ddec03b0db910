#pragma once
// The model beside every `stream` figure: a lower bound on a chunk's latency
// and an upper bound on the stream's throughput, from the machine's ceilings.
#include <cstdint>
#include <string>

#include "bench/stream/stream.hpp"
#include "bench/stream/stream_run.hpp"

namespace ferry::stream {

struct Prediction {
  double latency_s = 0;
  std::string latency_basis;
  double throughput_Bps = 0;  // input bytes per second
  std::string throughput_basis;  // the term that binds
};

// Latency >= fixed overheads (launch and completion, copy set-up, or the flag
// round trip) + the chunk through each of its stages one after another (the
// persistent pipeline's stages overlap: there, the slowest of them).
// Throughput <= min(the link both ways at once, compute, host calls per chunk,
// depth x chunk / latency) -- the last is Little's law.
Prediction predict(const Point& point, const StreamConfig& config, const Ceilings& ceilings);

}  // namespace ferry::stream
