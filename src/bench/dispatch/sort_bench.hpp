#pragma once
// One key count's buffers and its timed runs: H2D, the sort dispatched as a
// rung says, D2H (or, +zerocopy, the sort alone, reaching host memory itself);
// host wall time, fresh keys every run, every key checked.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/measure.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/dispatch_ladder.hpp"
#include "bench/dispatch/fused_sort.hpp"

namespace ferry::dispatch {

// Test hook (FERRY_FAULT_CORRUPT_OUTPUT): whether a measurement's first timed sample has two
// keys of its output swapped after the sort and before the check.
enum class FirstSample { as_run, corrupted };

class SortBench {
 public:
  // `tile`: keys per on-chip tile of the fused rungs (at most `keys`).
  SortBench(Backend& backend, int device, std::uint64_t keys, std::uint64_t tile, int iterations);

  // The copies alone, H2D then D2H through `host` memory: what every rung also moves.
  Measurement copies(MemoryKind host, FirstSample first = FirstSample::as_run);
  // One rung; its set-up (events, graph capture) happens first, untimed.
  Measurement rung(Rung rung, FirstSample first = FirstSample::as_run);

  std::size_t passes() const { return passes_.size(); }
  std::size_t fused_steps() const { return steps_.size(); }
  std::uint64_t tile() const { return tile_; }
  int persistent_teams() const { return persistent_teams_; }
  // What a rung launches and waits on: its kernels, and the grid barriers inside them.
  Dispatches dispatches(Rung rung) const;

 private:
  struct HostKeys {
    Buffer in, out;
  };
  // What a rung sets up once: its events or its graph.
  struct RungSetUp {
    std::vector<std::unique_ptr<Event>> events;
    std::unique_ptr<Graph> graph;
  };
  HostKeys& host(MemoryKind kind);
  void fresh_keys(HostKeys& keys);  // new keys in, poison out and on the device
  bool sorted_correctly(const HostKeys& keys) const;
  bool copied_correctly(const HostKeys& keys) const;
  // The check after each timed sample, reported as "dispatch.sorted": `intact`, after the test
  // hook, when `first` says so, has swapped two keys of the first sample's output.
  std::function<bool()> output_check(HostKeys& keys, FirstSample first, std::function<bool()> intact);
  void enqueue_sort(Stream& stream, const RungPlan& plan, RungSetUp& set_up);
  // +resident: its kernel launched before the sorts; each sort timed from the doorbell to the last team's flag.
  Measurement resident(const std::function<bool()>& check);
  // H2D (with `copy_keys`), the sort, D2H: host wall time from the first to the final wait's return.
  Measurement timed(HostKeys& keys, bool copy_keys, const std::function<void(Stream&)>& sort,
                    const std::function<bool()>& check);

  Backend& backend_;
  int device_;
  std::uint64_t count_;
  int iterations_;
  std::uint64_t tile_;
  std::vector<Pass> passes_;
  std::vector<FusedStep> steps_;
  int persistent_teams_ = 0;  // asked of the device when +persistent first runs
  Buffer device_keys_;
  HostKeys pageable_, pinned_;
  std::optional<HostKeys> mapped_;  // the rungs' without copies
  std::unique_ptr<Stream> stream_;
  std::uint64_t draws_ = 0;
};

}  // namespace ferry::dispatch
