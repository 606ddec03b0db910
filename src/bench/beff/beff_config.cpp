#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "bench/beff/beff.hpp"
#include "bench/common/exchange_areas.hpp"
#include "bench/common/message_corruption.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry::beff {

std::vector<std::uint64_t> definition_sizes() {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = 1; bytes <= 4096; bytes *= 2) sizes.push_back(bytes);
  for (std::uint64_t bytes = 16 << 10; bytes <= definition_largest; bytes *= 2) sizes.push_back(bytes);
  return sizes;
}

void parse_corruption(std::string_view text, BeffConfig& config) {
  const MessageCorruption corruption = parse_message_corruption(text, corrupt_variable);
  config.corrupt_bytes = corruption.bytes;
  config.corrupt_repetition = corruption.index;
}

void parse_rank_exit(std::string_view text, BeffConfig& config) {
  const auto at = text.find('@');
  if (at == std::string_view::npos)
    throw UsageError(fmt::format("{}='{}': expected RANK@SIZE, e.g. 1@4K", rank_exit_variable, text));
  const std::string_view rank = text.substr(0, at);
  config.exit_rank = rank == "0" ? 0 : parse_positive_int(rank, rank_exit_variable);
  config.exit_bytes = parse_bytes(text.substr(at + 1));
}

std::vector<std::uint64_t> BeffConfig::sizes() const {
  std::vector<std::uint64_t> sizes = definition_sizes();
  for (std::uint64_t bytes = 2 * definition_largest; bytes <= max_bytes; bytes *= 2) sizes.push_back(bytes);
  return sizes;
}

std::uint64_t BeffConfig::area() const { return std::max(area_bytes, 4 * transport::slot_pitch(sizes().back())); }

BeffConfig BeffConfig::defaults(const Capabilities& capabilities, bool quick) {
  BeffConfig c;
  if (capabilities.gpu_timings) {
    c.repetitions = quick ? 3 : 10;
    c.min_time_s = quick ? 1e-3 : 5e-3;
    c.area_bytes = 1ull << 30;
  } else {
    // The emulator's exchanges cost thread switches on a CPU: short measurements keep CI in seconds.
    c.repetitions = quick ? 2 : 3;
    c.min_time_s = quick ? 2e-4 : 1e-3;
    c.area_bytes = 16ull << 20;
    c.most_exchanges = 4096;
  }
  return c;
}

int participants_of(const World& world, const BeffConfig& config) {
  return world.distributed() ? world.size() : static_cast<int>(config.devices.size());
}

void validate(Backend& backend, const BeffConfig& config, int participants) {
  if (config.devices.empty()) throw UsageError("no device selected");
  if (std::set<int>(config.devices.begin(), config.devices.end()).size() != config.devices.size())
    throw UsageError("a device is listed twice in --devices");
  if (config.transports.empty()) throw UsageError("no transport selected");
  if (participants < 2) throw UsageError(needs_two_participants("beff", participants));
  if (config.repetitions < 1) throw UsageError("--repetitions must be at least 1");
  // A hook that names a repetition the run does not have would corrupt nothing, and a test of it pass unseen.
  if (config.corrupt_bytes > 0 && config.corrupt_repetition >= config.repetitions)
    throw UsageError(fmt::format("{}: repetition {} of a run of {}", corrupt_variable, config.corrupt_repetition + 1,
                                 config.repetitions));
  if (config.max_bytes < definition_largest)
    throw UsageError(fmt::format("--max-size {} is below the definition's largest message ({}): it can only extend "
                                 "the sizes",
                                 format_bytes(config.max_bytes), format_bytes(definition_largest)));
  const std::uint64_t largest = config.sizes().back();
  const std::uint64_t area = config.area();
  for (int device : config.devices) {
    const DeviceStatus status = backend.device_status(device);  // throws for a device that does not exist
    if (2 * area > status.free_bytes)
      throw UsageError(
          fmt::format("messages of up to {} need {} on device {} (a send and a receive area), which has {} free",
                      format_bytes(largest), format_bytes(2 * area), device, format_capacity(status.free_bytes)));
  }
}

}  // namespace ferry::beff
