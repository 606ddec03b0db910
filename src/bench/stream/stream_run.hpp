#pragma once
// What the parts of one `stream` run share. Internal to bench/stream.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "bench/stream/stream.hpp"
#include "bench/stream/stream_flags.hpp"
#include "core/clock.hpp"

namespace ferry::stream {

// The host's poll loops give way to other threads only on a small machine,
// and only now and then: a yield is a system call, which delays noticing the
// flag by about a microsecond; never yielding would starve the emulator's
// threads on two cores.
class HostPoll {
 public:
  void idle() {
    static const bool few_cores = std::thread::hardware_concurrency() <= 4;
    if (few_cores && ++idle_polls_ % 64 == 0) std::this_thread::yield();
  }

 private:
  unsigned idle_polls_ = 0;
};

// Spins until *flag >= value; throws RuntimeFailure after `timeout_s`, naming
// the design and the chunk, or as soon as *failure (when given) reports a team
// that gave up, with `failure_text` of it.
void wait_for_flag(const std::uint64_t* flag, std::uint64_t value, double timeout_s, std::string_view design,
                   std::uint64_t chunk, const std::uint64_t* failure = nullptr,
                   const std::function<std::string(std::uint64_t)>& failure_text = {});

// A launched-once kernel's shutdown: sent by now(), or else when the pass
// unwinds from an error, so the kernel is always told to stop and awaited.
class ShutdownOnExit {
 public:
  explicit ShutdownOnExit(std::function<void()> send) : send_(std::move(send)) {}
  ShutdownOnExit(const ShutdownOnExit&) = delete;
  ShutdownOnExit& operator=(const ShutdownOnExit&) = delete;
  ~ShutdownOnExit() {
    try {
      now();
    } catch (...) {
    }
  }
  void now() {
    if (auto send = std::exchange(send_, nullptr)) send();
  }

 private:
  std::function<void()> send_;
};

// A kernel's flags in mapped host memory (FlagLayout), every word zero to
// begin with: no chunk rung, none done, no_failure.
class MappedFlags {
 public:
  MappedFlags(Backend& backend, FlagLayout layout);
  FlagWords host() const { return layout_.at(words_.as<std::uint64_t>()); }  // as the host rings and polls them
  FlagWords device() const { return layout_.at(words_.device_view_as<std::uint64_t>()); }  // as the kernel reaches them

 private:
  FlagLayout layout_;
  Buffer words_;
};

// For a kernel that polls a doorbell per ring slot (fused, pool): however the
// pass ends, every slot is rung with shutdown_bit and the kernel awaited.
ShutdownOnExit shutdown_by_doorbells(std::uint64_t* doorbells, int slots, Stream& stream);

// The stream's input words for one seed, and the count of output words that
// differ from the host's own computation of them: on host threads.
void fill_input(std::uint32_t* words, std::uint64_t count, std::uint64_t seed);
std::uint64_t wrong_outputs(const std::uint32_t* words, std::uint64_t count, std::uint64_t seed, int stages,
                            int rounds);

// One configuration the run measures.
struct Point {
  Design design = Design::chunked;
  std::uint64_t chunk_bytes = 0;  // offload: the whole stream
  int depth = 1;                  // chunks in flight; offload: 1
};

// The chunks a pass of `chunks` chunks keeps in flight, and so the slots of
// its ring: the point's depth, or every chunk when the pass has fewer.
inline std::uint64_t chunks_in_flight(const Point& point, std::uint64_t chunks) {
  return std::min(static_cast<std::uint64_t>(point.depth), chunks);
}

// The points the config's sweep measures, in order; what the backend cannot
// run goes to `skipped`, with the reason.
std::vector<Point> points_of(const StreamConfig& config, const Capabilities& capabilities,
                             std::vector<std::string>& skipped);

// One pass over (part of) the stream.
struct Pass {
  std::vector<double> latency_s;  // per chunk: input ready on the host -> output visible to the host
  double wall_s = 0;              // first chunk ready -> last chunk visible
};

// A pass's figures from the moment each chunk was handed over (its input
// ready) and the moment its output was visible, chunks in order and consumed
// in order: a chunk's latency runs from its own hand-over, not the pass's
// first, and the pass from the first hand-over to the last chunk visible.
Pass pass_of(const std::vector<HostClock::time_point>& handed_over, const std::vector<HostClock::time_point>& visible);

// The host's closed loop: `in_flight` chunks handed over at once, chunk
// c + in_flight handed over as soon as chunk c is back, results awaited in
// order. hand_over(c) starts chunk c; await(c) returns once its output is
// visible. `now` reads the clock just before each hand-over and just after
// each await returns: the host's steady clock, or a test's.
Pass closed_loop(std::uint64_t chunks, std::uint64_t in_flight, const std::function<void(std::uint64_t)>& hand_over,
                 const std::function<void(std::uint64_t)>& await,
                 const std::function<HostClock::time_point()>& now = HostClock::now);

struct PointMeasurement {
  std::vector<double> latency_s;  // every chunk of every timed iteration
  std::vector<double> wall_s;     // one per timed iteration
  Check check = Check::not_applicable;
  std::uint64_t wrong_words = 0;  // summed over the timed iterations
};

// Holds the stream's host buffers for a run and measures points on them.
class StreamBench {
 public:
  StreamBench(Backend& backend, const Machine& machine, const StreamConfig& config);

  // Warm-up, then config.iterations timed passes, each on fresh input, each verified.
  PointMeasurement measure(const Point& point);

  std::uint64_t chunks_of(const Point& point) const;
  int persistent_teams(std::uint64_t chunk_bytes, int resident) const;
  int fused_teams_per_group(std::uint64_t chunk_bytes, int groups, int resident) const;

  // The designs' passes over the stream's first `chunks` chunks, one per
  // design's entry (stream_designs.cpp), unverified.
  Pass launch_per_chunk(const Point& point, std::uint64_t chunks);  // offload, chunked, zerocopy, pipeline
  Pass persistent(const Point& point, std::uint64_t chunks);
  Pass graph_ring(const Point& point, std::uint64_t chunks);
  Pass fused(const Point& point, std::uint64_t chunks);
  Pass pool(const Point& point, std::uint64_t chunks);

 private:
  Pass stream_once(const Point& point, std::uint64_t chunks);
  void prepare(std::uint64_t seed);           // fresh input, poisoned output
  void corrupt_one_word(const Point& point);  // the test hook, config.corrupt_output
  std::uint64_t wrong_words(std::uint64_t seed) const;

  Backend& backend_;
  const StreamConfig& config_;
  int multiprocessors_;
  Buffer input_;   // host memory the stream arrives in: mapped when the backend can, else pinned
  Buffer output_;  // host memory the results go to
  std::uint64_t next_seed_ = 1;
};

// A point measured: its latency row and its throughput row, model beside each.
struct MeasuredPoint {
  Point point;
  Row latency;
  Row throughput;
};

// A point's rows from its measurement: the latency row over every chunk of
// every timed pass, the throughput row the stream's bytes over each pass's
// wall time (a sample a pass), each with the model beside it (stream_model.hpp).
struct Prediction;
MeasuredPoint point_rows(const Point& point, PointMeasurement measured, const StreamConfig& config,
                         const Prediction& model);

// The compute ceilings, then every point of the config's sweep, each verified:
// adds the compute, latency and throughput sections and rows to `result`,
// skipping (with the reason) what the backend cannot run.
std::vector<MeasuredPoint> measure_sweep(Backend& backend, const Machine& machine, const StreamConfig& config,
                                         const model::DeviceProfile& profile, const Progress& progress,
                                         WorkloadResult& result);
std::string point_name(const Point& point);

}  // namespace ferry::stream
