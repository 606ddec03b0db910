#pragma once
// `ferry run dispatch`: a bitonic sort of many small dependent kernels, timed
// down a ladder of dispatch optimizations, each rung beside its model.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/plan.hpp"
#include "bench/dispatch/dispatch_ladder.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"

namespace ferry::dispatch {

struct DispatchConfig {
  int device = 0;
  std::vector<std::uint64_t> keys = {32768};  // key counts to sort, each a power of two
  std::vector<Rung> rungs{std::begin(ladder), std::end(ladder)};
  // Keys a team holds on chip in the fused rungs (a thread per 8). On H100 at
  // 32768 keys, with each stage's windows compiled for its bits, tiles of
  // 2048 sorted fastest: 27.9 us of device time against 29.1 at 1024 and
  // 33.6 at 4096 (fewer steps, each a sweep of device memory, against more
  // work for each of fewer multiprocessors). Before that, when a window cost
  // twice the instructions, 512 and 1024 had been fastest.
  std::uint64_t tile = 2048;
  int iterations = 25;  // timed runs per rung, after a warm-up
  std::string profile_origin = "measured by link in this run";
  // Test hook (FERRY_FAULT_CORRUPT_OUTPUT, docs/reliability.md): the row, named as row_names
  // names it, whose first timed sample, at the first key count it runs, has two keys of its
  // output swapped after the sort and before the check. Empty: none.
  std::string corrupt_row;

  static DispatchConfig defaults(bool quick);
  bool uses(MemoryKind host) const;  // does any selected rung copy through this host memory?
};

// The dependent passes of a bitonic sort of `keys` keys, a kernel each at the
// baseline rung: 120 for 32768 (bitonic.hpp).
std::size_t pass_count(std::uint64_t keys);

// Every rung's samples, in the run and in its plan: `iterations` after 3 warm-ups.
Repeat sort_repeat(int iterations);

// Throws UsageError for what the device or the host cannot give.
void validate(Backend& backend, const DispatchConfig& config);

// The rows a run of `config` measures on this device, as FERRY_FAULT_CORRUPT_OUTPUT names them:
// the copies alone ("pageable-copies", "pinned-copies") through the host memory the rungs use,
// then each rung ("baseline", "+graph", ...) that runs at some key count.
std::vector<std::string> row_names(const DispatchConfig& config, const Capabilities& capabilities,
                                   const DeviceFeatures& features);
std::string copies_row_name(MemoryKind host);  // "pinned-copies"
// A row's name as row_names spells it ("graph" -> "+graph"); throws UsageError naming the
// variable and every row there is for text that names none.
std::string parse_row_name(std::string_view text);

// The steps run() takes, each with its work, before anything is allocated;
// the rungs the device cannot run are in `skipped`.
Plan plan_run(const DispatchConfig& config, const Capabilities& capabilities, const DeviceFeatures& features);

WorkloadResult run(Backend& backend, const DispatchConfig& config, const model::DeviceProfile& profile,
                   const Progress& progress);

}  // namespace ferry::dispatch
