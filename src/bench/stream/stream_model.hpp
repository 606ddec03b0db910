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
  double throughput_Bps = 0;     // input bytes per second
  std::string throughput_basis;  // the term that binds
  double path_s = 0;             // one chunk alone: fixed costs + its bytes through each step
  double ceiling_Bps = 0;        // the least of the rate limits, whatever the depth
  std::string ceiling_basis;
};

// What a design's path reads, for one chunk.
struct PathTerms {
  const model::DeviceProfile& link;
  const StreamConfig& config;
  double chunk = 0;          // bytes
  double compute_Bps = 0;    // the design's compute ceiling
  double both_ways_Bps = 0;  // the link both ways at once, by the design's way of crossing it
  double copies_s = 0;       // a copy in, then a copy out, with their fixed costs
};

// What a chunk alone goes through in one design (its entry's `path`):
// fixed overheads, then its bytes through each step.
struct ChunkPath {
  double fixed_s = 0;
  double moving_s = 0;
  std::string what = {};
  double host_calls = 0;        // the host's calls per chunk, each a launch's cost; 0: none
  std::string host_limit = {};  // the ceiling those calls set, named; empty: "host: N calls per chunk"
};

ChunkPath launch_copy_kernel_copy(const PathTerms& t);       // offload, chunked
ChunkPath launch_kernel_per_stage(const PathTerms& t);       // pipeline
ChunkPath graph_launch(const PathTerms& t);                  // graph
ChunkPath launch_on_mapped_memory(const PathTerms& t);       // zerocopy
ChunkPath doorbell_through_stage_roles(const PathTerms& t);  // persistent
ChunkPath doorbell_through_all_stages(const PathTerms& t);   // fused, pool

// A chunk alone takes its path: fixed overheads (launch and completion, copy
// set-up, or the flag round trip and a mapped read) + the chunk through each
// step one after another (steps that stream through the SMs overlap: there,
// the slowest of them). The stream's ceiling is the least of the link both
// ways at once (queued copies, or zero-copy read-while-write), compute, and
// the host's calls per chunk.
// With `depth` chunks in flight (Little's law), latency >= max(path,
// depth x chunk / ceiling) and throughput <= min(ceiling, depth x chunk / path).
Prediction predict(const Point& point, const StreamConfig& config, const Ceilings& ceilings);

// What the link allows a stream whose chunks must come back within a latency,
// per direction, from link's figures; Bps 0 when link measured none that fits,
// or when the profile has none of them (written before link measured them).
struct LatencyCeiling {
  double Bps = 0;
  std::string basis;
  std::string missing;  // the figures the profile lacks, else empty
};

// SM designs (zerocopy, persistent, fused, pool): a chunk waits on host
// memory three times in a row (its doorbell seen, its reads, its writes
// drained before its flag), each a read's round trip at the load the stream
// puts on the link. The most throughput link measured under load
// (zero_copy_under_load) whose three round trips fit.
LatencyCeiling sm_ceiling_within(const model::DeviceProfile& link, double latency_s);

// Copy-engine designs: a chunk is copied in, then out. The fastest copies
// queued both ways (copy_queue) whose two copies, one after the other, fit.
LatencyCeiling engine_ceiling_within(const model::DeviceProfile& link, double latency_s);

}  // namespace ferry::stream
