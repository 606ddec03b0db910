#pragma once
// `ferry run overlap`: a vector add c = a + b too large for one transfer to
// hide, done on the host, serially on the device, and split into k
// sub-buffers whose copies and kernels overlap on several streams.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/plan.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "core/trace.hpp"
#include "model/profile.hpp"

namespace ferry::overlap {

struct OverlapConfig {
  int device = 0;
  std::uint64_t elements = 0;                  // 32-bit words per vector
  std::vector<int> splits;                     // k to sweep
  std::uint64_t min_split_bytes = 1ull << 20;  // no sub-buffer smaller (bar the last): smaller requests are clamped
  MemoryKind host = MemoryKind::pinned;        // pinned or pageable
  int streams = 4;                             // sub-buffer chains go round-robin over this many streams
  int iterations = 7;                          // timed runs per variant, after a warm-up
  bool want_trace = false;                     // keep a timeline of one pipelined run (the best k)
  std::string profile_origin = "measured by link in this run";
  // Test hook (FERRY_FAULT_CORRUPT_OUTPUT, docs/reliability.md): the row, named as the table
  // names it ("kernel", "cpu", "serial", "k=K"), whose first timed sample has one word of host c
  // changed after the work and before the check. Empty: none.
  std::string corrupt_row;

  // 256 Mi words (1 GiB a vector) and k = 1..256 on a GPU; less on the emulator.
  static OverlapConfig defaults(const Capabilities& capabilities, bool quick);
  std::uint64_t vector_bytes() const { return elements * 4; }
};

// Throws UsageError for what the backend or the host cannot give.
void validate(Backend& backend, const OverlapConfig& config);

// The rows a run of `config` measures, as FERRY_FAULT_CORRUPT_OUTPUT names them:
// kernel, cpu, serial, then k=K for each k that gives sub-buffers of its own.
std::vector<std::string> row_names(const OverlapConfig& config);
std::string pipelined_row_name(int k);  // "k=16"

struct OverlapOutcome {
  WorkloadResult result;
  Trace trace;  // empty unless want_trace
};

// The steps run() takes, each with its work, before anything is allocated.
Plan plan_run(const OverlapConfig& config);

OverlapOutcome run(Backend& backend, const OverlapConfig& config, const model::DeviceProfile& profile,
                   const Progress& progress);

}  // namespace ferry::overlap
