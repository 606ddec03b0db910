// What `ferry run overlap` does without options, and what it refuses.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "bench/overlap/overlap.hpp"
#include "bench/overlap/overlap_split.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::overlap {

OverlapConfig OverlapConfig::defaults(const Capabilities& capabilities, bool quick) {
  OverlapConfig c;
  if (capabilities.gpu_timings) {
    c.elements = quick ? 64ull << 20 : 256ull << 20;  // 256 MiB or 1 GiB a vector
    c.splits = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    if (quick) c.splits = {1, 4, 16, 64};
    c.iterations = quick ? 5 : 7;
  } else {
    // The emulator's copies and kernels are CPU loops: 16 MiB vectors keep a run to seconds.
    c.elements = quick ? 1ull << 20 : 4ull << 20;
    c.splits = quick ? std::vector<int>{1, 4} : std::vector<int>{1, 2, 4, 8, 16};
    c.iterations = 5;
  }
  return c;
}

std::string pipelined_row_name(int k) { return fmt::format("k={}", k); }

std::vector<std::string> row_names(const OverlapConfig& config) {
  std::vector<std::string> names = {"kernel", "cpu", "serial"};
  std::set<std::size_t> seen;  // a k that gives the sub-buffers of an earlier one is not measured again
  for (int k : config.splits)
    if (seen.insert(split_vector(config.elements, k, config.min_split_bytes).parts.size()).second)
      names.push_back(pipelined_row_name(k));
  return names;
}

void validate(Backend& backend, const OverlapConfig& config) {
  const DeviceStatus status = backend.device_status(config.device);  // throws for a device that does not exist
  if (config.elements == 0) throw UsageError("--size must be at least one 4-byte word");
  if (config.splits.empty()) throw UsageError("no --splits given");
  for (int k : config.splits)
    if (k < 1 || k > 65536) throw UsageError(fmt::format("--splits must be 1..65536, not {}", k));
  if (config.min_split_bytes == 0) throw UsageError("--min-split must be at least 1 byte");
  if (config.streams < 1 || config.streams > 64)
    throw UsageError(fmt::format("--streams must be 1..64, not {}", config.streams));
  if (config.iterations < 1) throw UsageError("--iterations must be at least 1");
  if (config.host != MemoryKind::pinned && config.host != MemoryKind::pageable)
    throw UsageError("--host must be pinned or pageable");
  if (!config.corrupt_row.empty()) {
    const std::vector<std::string> rows = row_names(config);
    if (std::find(rows.begin(), rows.end(), config.corrupt_row) == rows.end())
      throw UsageError(fmt::format("{}='{}' names no row this overlap run measures: it accepts {}",
                                   corrupt_output_variable, config.corrupt_row,
                                   join(rows, ", ", [](const std::string& r) { return r; })));
  }

  const std::uint64_t needed = 3 * config.vector_bytes();
  if (needed > status.free_bytes)
    throw UsageError(fmt::format("a, b and c need {} on device {}, which has {} free: lower --size",
                                 format_bytes(needed), config.device, format_capacity(status.free_bytes)));
  const std::uint64_t host_bytes = read_host_facts().memory_bytes;
  if (host_bytes > 0 && needed > host_bytes / 2)
    throw UsageError(fmt::format("a, b and c need {} of host memory; this host has {}, and ferry keeps half of it free",
                                 format_bytes(needed), format_capacity(host_bytes)));
}

}  // namespace ferry::overlap
