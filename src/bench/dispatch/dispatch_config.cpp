// What `ferry run dispatch` does without options, and what it refuses.
#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/dispatch.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::dispatch {

DispatchConfig DispatchConfig::defaults(bool quick) {
  DispatchConfig c;
  c.iterations = quick ? 20 : 25;
  return c;
}

bool DispatchConfig::uses(MemoryKind host) const {
  return std::any_of(rungs.begin(), rungs.end(), [&](Rung r) { return plan(r).host == host; });
}

std::size_t pass_count(std::uint64_t keys) { return bitonic_passes(keys).size(); }

std::string copies_row_name(MemoryKind host) { return fmt::format("{}-copies", to_string(host)); }

std::vector<std::string> row_names(const DispatchConfig& config, const Capabilities& capabilities,
                                   const DeviceFeatures& features) {
  std::vector<std::string> names;
  for (MemoryKind host : {MemoryKind::pageable, MemoryKind::pinned})
    if (config.uses(host)) names.push_back(copies_row_name(host));
  for (Rung rung : config.rungs)
    if (std::any_of(config.keys.begin(), config.keys.end(), [&](std::uint64_t keys) {
          return unavailable_reason(rung, keys, config.tile, capabilities, features).empty();
        }))
      names.emplace_back(plan(rung).name);
  return names;
}

std::string parse_row_name(std::string_view text) {
  for (MemoryKind host : {MemoryKind::pageable, MemoryKind::pinned})
    if (text == copies_row_name(host)) return std::string(text);
  try {
    return std::string(plan(parse_rung(text)).name);
  } catch (const UsageError&) {
    throw UsageError(fmt::format("{}='{}' names no row of dispatch's table: it accepts a rung ({}), {} or {}",
                                 corrupt_output_variable, text,
                                 join(ladder, ",", [](Rung r) { return std::string(plan(r).name); }),
                                 copies_row_name(MemoryKind::pageable), copies_row_name(MemoryKind::pinned)));
  }
}

void validate(Backend& backend, const DispatchConfig& config) {
  const DeviceStatus status = backend.device_status(config.device);  // throws for a device that does not exist
  if (config.keys.empty()) throw UsageError("no --keys given");
  if (config.rungs.empty()) throw UsageError("no --rungs given");
  if (config.iterations < 1) throw UsageError("--iterations must be at least 1");
  if (config.tile < 2 || !std::has_single_bit(config.tile))
    throw UsageError(
        fmt::format("--tile {} is not a power of two >= 2: a tile is a bitonic sort of its own", config.tile));
  for (std::uint64_t keys : config.keys) {
    if (keys < 2 || !std::has_single_bit(keys))
      throw UsageError(fmt::format("--keys {} is not a power of two >= 2: bitonic sort needs one", keys));
    if (keys > (1ull << 31)) throw UsageError(fmt::format("--keys {} is more than 2^31", keys));
  }
  const std::uint64_t most = *std::max_element(config.keys.begin(), config.keys.end());
  if (4 * most > status.free_bytes)
    throw UsageError(fmt::format("{} keys need {} on device {}, which has {} free: lower --keys", most,
                                 format_bytes(4 * most), config.device, format_capacity(status.free_bytes)));
  std::uint64_t host_kinds = 0;
  for (MemoryKind kind : {MemoryKind::pageable, MemoryKind::pinned, MemoryKind::mapped})
    host_kinds += config.uses(kind) ? 1 : 0;
  const std::uint64_t host_needed = 2 * 4 * most * host_kinds;  // in and out, of every kind of host memory a rung uses
  const std::uint64_t host_bytes = read_host_facts().memory_bytes;
  if (host_bytes > 0 && host_needed > host_bytes / 2)
    throw UsageError(fmt::format("{} keys need {} of host memory; this host has {}, and ferry keeps half of it free",
                                 most, format_bytes(host_needed), format_capacity(host_bytes)));
  if (!config.corrupt_row.empty()) {
    const std::vector<std::string> rows =
        row_names(config, backend.capabilities(), backend.device_features(config.device));
    if (std::find(rows.begin(), rows.end(), config.corrupt_row) == rows.end())
      throw UsageError(fmt::format("{}='{}' names no row this dispatch run measures: it measures {}",
                                   corrupt_output_variable, config.corrupt_row,
                                   join(rows, ", ", [](const std::string& r) { return r; })));
  }
}

}  // namespace ferry::dispatch
