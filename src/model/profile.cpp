#include "model/profile.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/json_fields.hpp"

namespace ferry::model {
namespace {

using nlohmann::ordered_json;

// One list of the profile's figures, so writing and reading cannot drift apart.
// A figure added after profiles were first written is optional when read: 0 means not measured.
template <class Device, class Visit>
void each_device_field(Device& d, Visit visit) {
  constexpr bool optional = true;
  visit("pcie_theoretical_Bps", d.pcie_theoretical_Bps);
  visit("h2d_Bps", d.h2d_Bps);
  visit("d2h_Bps", d.d2h_Bps);
  visit("bidirectional_Bps", d.bidirectional_Bps);
  visit("pageable_h2d_Bps", d.pageable_h2d_Bps);
  visit("pageable_d2h_Bps", d.pageable_d2h_Bps);
  visit("zero_copy_read_Bps", d.zero_copy_read_Bps);
  visit("zero_copy_write_Bps", d.zero_copy_write_Bps);
  visit("zero_copy_both_Bps", d.zero_copy_both_Bps, optional);
  visit("mapped_read_latency_s", d.mapped_read_latency_s, optional);
  visit("copy_latency_h2d_s", d.copy_latency_h2d_s);
  visit("copy_latency_d2h_s", d.copy_latency_d2h_s);
  visit("copy_engine_latency_h2d_s", d.copy_engine_latency_h2d_s);
  visit("copy_engine_latency_d2h_s", d.copy_engine_latency_d2h_s);
  visit("launch_and_sync_s", d.launch_and_sync_s);
  visit("launch_per_kernel_s", d.launch_per_kernel_s);
  visit("graph_per_kernel_s", d.graph_per_kernel_s);
  visit("programmatic_graph_per_kernel_s", d.programmatic_graph_per_kernel_s, optional);
  visit("dependent_graph_per_kernel_s", d.dependent_graph_per_kernel_s, optional);
  visit("dependent_programmatic_graph_per_kernel_s", d.dependent_programmatic_graph_per_kernel_s, optional);
  visit("dependent_kernel_bytes", d.dependent_kernel_bytes, optional);
  visit("grid_barrier_s", d.grid_barrier_s, optional);
  visit("cluster_barrier_s", d.cluster_barrier_s, optional);
  visit("sync_wakeup_s", d.sync_wakeup_s);
  visit("flag_round_trip_s", d.flag_round_trip_s);
  visit("flag_round_trip_release_s", d.flag_round_trip_release_s, optional);
  visit("chunk_echo_s", d.chunk_echo_s, optional);
  visit("graph_chunk_round_trip_s", d.graph_chunk_round_trip_s, optional);
  visit("device_copy_Bps", d.device_copy_Bps);
}

}  // namespace

const DeviceProfile& MachineProfile::device(int index) const {
  for (const auto& d : devices)
    if (d.device == index) return d;
  throw UsageError(fmt::format("the profile has no figures for device {}", index));
}

namespace {

ordered_json copy_times_json(const std::vector<CopyTime>& sizes) {
  ordered_json out = ordered_json::array();
  for (const CopyTime& c : sizes) out.push_back({{"bytes", c.bytes}, {"seconds", c.seconds}});
  return out;
}

std::vector<CopyTime> copy_times_from(const nlohmann::json& peer, const char* key) {
  std::vector<CopyTime> sizes;
  if (!peer.contains(key)) return sizes;
  for (const auto& c : peer.at(key))
    sizes.push_back({whole_number<std::uint64_t>(c, "bytes"), c.at("seconds").get<double>()});
  return sizes;
}

ordered_json loaded_json(const std::vector<LoadedLink>& loads) {
  ordered_json out = ordered_json::array();
  for (const LoadedLink& l : loads)
    out.push_back({{"teams", l.teams}, {"Bps", l.Bps}, {"read_round_trip_s", l.read_round_trip_s}});
  return out;
}

std::vector<LoadedLink> loaded_from(const nlohmann::json& entry) {
  std::vector<LoadedLink> loads;
  if (!entry.contains("zero_copy_under_load")) return loads;  // profiles written before it have none
  for (const auto& l : entry.at("zero_copy_under_load"))
    loads.push_back(
        {whole_number<int>(l, "teams"), l.at("Bps").get<double>(), l.at("read_round_trip_s").get<double>()});
  return loads;
}

// Every time and rate is positive. A scalar figure may also be 0, which says it
// was not measured (pinned copies under --memory mapped, PCIe on the emulator); a
// figure a profile holds only where it was measured (each size of a list, a
// peer's copy rate and latency) may not. A negative figure, or an unmeasured one
// where none can be, would make a model's column vanish without a word.
class FigureCheck {
 public:
  explicit FigureCheck(const std::string& origin) : origin_(origin) {}

  void measured_or_zero(double value, const std::string& where, const char* key) const {
    if (value < 0 || !std::isfinite(value)) refuse(value, where, key);
  }
  void measured(double value, const std::string& where, const char* key) const {
    if (!(value > 0) || !std::isfinite(value)) refuse(value, where, key);
  }
  void sizes(const std::vector<CopyTime>& times, const std::string& where, const char* list) const {
    for (std::size_t i = 0; i < times.size(); ++i) {
      const std::string entry = fmt::format("{} {}[{}]", where, list, i);
      measured(static_cast<double>(times[i].bytes), entry, "bytes");
      measured(times[i].seconds, entry, "seconds");
    }
  }

 private:
  [[noreturn]] void refuse(double value, const std::string& where, const char* key) const {
    throw UsageError(fmt::format("'{}' is not a usable machine profile: {} \"{}\" is {}, and a time or a rate is "
                                 "positive (0 only where a figure was not measured): rerun `ferry probe -o FILE`",
                                 origin_, where, key, nlohmann::json(value).dump()));
  }
  const std::string& origin_;
};

void check_figures(const MachineProfile& profile, const std::string& origin) {
  const FigureCheck check(origin);
  for (const DeviceProfile& d : profile.devices) {
    const std::string where = fmt::format("device {}'s", d.device);
    each_device_field(d, [&](const char* key, const double& value, bool = false) {
      check.measured_or_zero(value, where, key);
    });
    check.sizes(d.queued_h2d, where, "queued_h2d");
    check.sizes(d.queued_d2h, where, "queued_d2h");
    check.sizes(d.queued_both_ways, where, "queued_both_ways");
    for (std::size_t i = 0; i < d.zero_copy_under_load.size(); ++i) {
      const LoadedLink& l = d.zero_copy_under_load[i];
      const std::string entry = fmt::format("{} zero_copy_under_load[{}]", where, i);
      check.measured(l.teams, entry, "teams");
      check.measured(l.Bps, entry, "Bps");
      check.measured(l.read_round_trip_s, entry, "read_round_trip_s");
    }
  }
  for (const PeerProfile& p : profile.peers) {
    const std::string where = fmt::format("peer {} -> {}'s", p.from, p.to);
    check.measured(p.copy_Bps, where, "copy_Bps");
    check.measured(p.latency_s, where, "latency_s");
    check.measured_or_zero(p.bidirectional_Bps, where, "bidirectional_Bps");
    check.measured_or_zero(p.sm_push_Bps, where, "sm_push_Bps");
    check.measured_or_zero(p.sm_pull_Bps, where, "sm_pull_Bps");
    check.measured_or_zero(p.flag_one_way_s, where, "flag_one_way_s");
    check.sizes(p.copy_times, where, "copy_times");
    check.sizes(p.both_ways, where, "both_ways");
  }
}

}  // namespace

std::string profile_to_json(const MachineProfile& profile) {
  ordered_json devices = ordered_json::array();
  for (DeviceProfile d : profile.devices) {
    ordered_json entry = {{"device", d.device}, {"name", d.name}};
    each_device_field(d, [&](const char* key, double& value, bool = false) { entry[key] = value; });
    entry["queued_h2d"] = copy_times_json(d.queued_h2d);
    entry["queued_d2h"] = copy_times_json(d.queued_d2h);
    entry["queued_both_ways"] = copy_times_json(d.queued_both_ways);
    entry["zero_copy_under_load"] = loaded_json(d.zero_copy_under_load);
    devices.push_back(entry);
  }
  ordered_json peers = ordered_json::array();
  for (const PeerProfile& p : profile.peers) {
    peers.push_back({{"from", p.from},
                     {"to", p.to},
                     {"direct_access", p.direct_access},
                     {"copy_Bps", p.copy_Bps},
                     {"latency_s", p.latency_s},
                     {"bidirectional_Bps", p.bidirectional_Bps},
                     {"copy_times", copy_times_json(p.copy_times)},
                     {"both_ways", copy_times_json(p.both_ways)},
                     {"sm_push_Bps", p.sm_push_Bps},
                     {"sm_pull_Bps", p.sm_pull_Bps},
                     {"flag_one_way_s", p.flag_one_way_s}});
  }
  const ordered_json doc = {
      {"schema", MachineProfile::schema},   {"backend", profile.backend}, {"gpu_timings", profile.gpu_timings},
      {"created_utc", profile.created_utc}, {"devices", devices},         {"peers", peers},
  };
  return doc.dump(1) + "\n";
}

MachineProfile profile_from_json(const std::string& text, const std::string& origin) {
  auto malformed = [&](const std::string& why) {
    return UsageError(fmt::format("'{}' is not a ferry machine profile: {}", origin, why));
  };
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number past a double's range
    throw malformed(fmt::format("invalid JSON ({})", e.what()));
  }
  if (!doc.is_object() || !doc.contains("schema")) throw malformed("no \"schema\" field");
  if (doc["schema"] != MachineProfile::schema)
    throw malformed(fmt::format("schema is {}, expected \"{}\"", doc["schema"].dump(), MachineProfile::schema));
  try {
    MachineProfile profile;
    profile.backend = doc.at("backend").get<std::string>();
    profile.gpu_timings = doc.at("gpu_timings").get<bool>();
    profile.created_utc = doc.value("created_utc", "");
    for (const auto& entry : doc.at("devices")) {
      DeviceProfile d;
      d.device = whole_number<int>(entry, "device");
      d.name = entry.value("name", "");
      each_device_field(d, [&](const char* key, double& value, bool optional = false) {
        value = optional ? entry.value(key, 0.0) : entry.at(key).get<double>();
      });
      d.queued_h2d = copy_times_from(entry, "queued_h2d");
      d.queued_d2h = copy_times_from(entry, "queued_d2h");
      d.queued_both_ways = copy_times_from(entry, "queued_both_ways");
      d.zero_copy_under_load = loaded_from(entry);
      profile.devices.push_back(d);
    }
    for (const auto& entry : doc.at("peers")) {
      profile.peers.push_back({.from = whole_number<int>(entry, "from"),
                               .to = whole_number<int>(entry, "to"),
                               .direct_access = entry.at("direct_access").get<bool>(),
                               .copy_Bps = entry.at("copy_Bps").get<double>(),
                               .latency_s = entry.at("latency_s").get<double>(),
                               // Profiles written before beff have neither: 0 means not measured.
                               .bidirectional_Bps = entry.value("bidirectional_Bps", 0.0),
                               .copy_times = copy_times_from(entry, "copy_times"),
                               .both_ways = copy_times_from(entry, "both_ways"),
                               .sm_push_Bps = entry.value("sm_push_Bps", 0.0),
                               .sm_pull_Bps = entry.value("sm_pull_Bps", 0.0),
                               // Profiles written before link's peer flag lack it: 0 means not measured.
                               .flag_one_way_s = entry.value("flag_one_way_s", 0.0)});
    }
    check_figures(profile, origin);
    return profile;
  } catch (const nlohmann::json::exception& e) {
    throw malformed(e.what());
  } catch (const std::range_error& e) {
    throw malformed(e.what());
  }
}

double seconds_at(const std::vector<CopyTime>& times, double bytes) {
  if (times.empty()) return 0;
  if (times.size() == 1) return times.front().seconds * bytes / static_cast<double>(times.front().bytes);
  std::size_t hi = 1;
  while (hi + 1 < times.size() && static_cast<double>(times[hi].bytes) < bytes) ++hi;
  const CopyTime& a = times[hi - 1];
  const CopyTime& b = times[hi];
  const double slope = (b.seconds - a.seconds) / (static_cast<double>(b.bytes) - static_cast<double>(a.bytes));
  return std::max(0.0, a.seconds + slope * (bytes - static_cast<double>(a.bytes)));
}

MachineProfile read_profile(const std::string& path) { return profile_from_json(read_file(path), path); }

}  // namespace ferry::model
