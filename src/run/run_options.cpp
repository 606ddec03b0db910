#include "run/run_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <string>

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

namespace {

// This rank's device under mpirun, before any check against the other ranks'.
int rank_device(const Backend& backend, const RunOptions& o, const World& w) {
  if (!o.device.empty()) return selected_devices(o).front();
  if (!o.devices.empty()) {
    const std::vector<int> listed = selected_devices(o);
    if (w.local_rank() >= static_cast<int>(listed.size()))
      throw UsageError(fmt::format("--devices {} names {} device(s), but this host runs local rank {}: list one "
                                   "device per rank of the host",
                                   o.devices, listed.size(), w.local_rank()));
    return listed[static_cast<std::size_t>(w.local_rank())];
  }
  return w.local_rank() % std::max(1, backend.device_count());
}

}  // namespace

std::string ranks_sharing(const std::vector<std::string>& places) {
  std::map<std::string, std::vector<std::size_t>> ranks_at;
  for (std::size_t r = 0; r < places.size(); ++r) ranks_at[places[r]].push_back(r);
  std::vector<std::string> shared;
  for (const auto& [place, ranks] : ranks_at) {
    if (ranks.size() < 2) continue;
    const std::vector<std::size_t> but_last(ranks.begin(), ranks.end() - 1);
    shared.push_back(fmt::format("ranks {} and {} share {}",
                                 join(but_last, ", ", [](std::size_t r) { return std::to_string(r); }), ranks.back(),
                                 place));
  }
  return join(shared, "; ", [](const std::string& s) { return s; });
}

std::string ranks_sharing_a_device(const std::vector<std::string>& places, int devices_here) {
  const std::string shared = ranks_sharing(places);
  if (shared.empty()) return "";
  return fmt::format("{}: ranks that share a GPU measure each other's traffic, so each measures about half of what it "
                     "would alone (this host has {} device{}): start one rank per device, name each rank's device "
                     "with --devices, or give --allow-shared-gpu to measure them so",
                     shared, devices_here, devices_here == 1 ? "" : "s");
}

Participants participant_devices(const Backend& backend, const RunOptions& o, const World& w) {
  if (!w.distributed()) {
    if (!o.device.empty() || !o.devices.empty()) return {selected_devices(o), ""};
    std::vector<int> all(static_cast<std::size_t>(backend.device_count()));
    for (int d = 0; d < backend.device_count(); ++d) all[d] = d;
    return {all, ""};
  }
  const int mine = rank_device(backend, o, w);
  const std::string place = fmt::format("GPU {} on {}", mine, w.host());
  std::vector<std::string> places;
  for (const auto& bytes : w.all_gather({place.begin(), place.end()})) places.emplace_back(bytes.begin(), bytes.end());
  const std::string shared = ranks_sharing(places);
  // Every row would say PASSED with each rank's figures halved, and no word of it.
  if (!shared.empty() && !o.allow_shared_gpu) throw UsageError(ranks_sharing_a_device(places, backend.device_count()));
  if (!shared.empty() && w.rank() == 0)
    std::fprintf(stderr, "ferry: note: %s: their figures include each other's traffic\n", shared.c_str());
  return {{mine}, shared};
}

}  // namespace ferry
