#include "run/run_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ferry {
namespace {

int parse_device(std::string_view text) {
  int value = -1;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty())
    throw UsageError(fmt::format("'{}' is not a device number", text));
  if (value < 0) throw UsageError(fmt::format("device {} does not exist: devices are numbered from 0", value));
  return value;
}

}  // namespace

std::vector<int> selected_devices(const RunOptions& options) {
  if (!options.device.empty() && !options.devices.empty()) throw UsageError("give --device or --devices, not both");
  if (options.devices.empty()) return {options.device.empty() ? 0 : parse_device(options.device)};
  std::vector<int> devices;
  for (std::string_view item : split(options.devices, ',')) devices.push_back(parse_device(item));
  return devices;
}

int one_device(const RunOptions& options, const std::string& workload) {
  const std::vector<int> devices = selected_devices(options);
  if (devices.size() != 1) throw UsageError(fmt::format("{} runs on one device: give --device N", workload));
  return devices.front();
}

std::vector<int> participant_devices(const Backend& backend, const RunOptions& o, const World& w) {
  const bool chosen = !o.device.empty() || !o.devices.empty();
  if (!w.distributed()) {
    if (chosen) return selected_devices(o);
    std::vector<int> all(static_cast<std::size_t>(backend.device_count()));
    for (int d = 0; d < backend.device_count(); ++d) all[d] = d;
    return all;
  }
  if (!o.device.empty()) return selected_devices(o);
  if (!o.devices.empty()) {
    const std::vector<int> listed = selected_devices(o);
    if (w.local_rank() >= static_cast<int>(listed.size()))
      throw UsageError(fmt::format("--devices {} names {} device(s), but this host runs local rank {}: list one "
                                   "device per rank of the host",
                                   o.devices, listed.size(), w.local_rank()));
    return {listed[static_cast<std::size_t>(w.local_rank())]};
  }
  return {w.local_rank() % std::max(1, backend.device_count())};
}

}  // namespace ferry
