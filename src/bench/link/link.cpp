#include "bench/link/link.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "bench/link/link_run.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "model/link_model.hpp"

namespace ferry::link {

LinkConfig LinkConfig::defaults(const Capabilities& capabilities, bool quick) {
  LinkConfig c;
  if (capabilities.gpu_timings) {
    // Up to 1 GiB: pinned copies reach their plateau only past a few hundred MiB.
    c.sweep_bytes = parse_byte_range(quick ? "64K:256M:x16" : "4K:1G:x4");
    c.latency_bytes = parse_byte_range(quick ? "4,1K,64K,1M" : "4:1M:x4");
    c.queued_copy_bytes = parse_byte_range(quick ? "4K:64M:x16" : "4K:64M:x4");
    c.queued_batch_bytes = 256ull << 20;
    c.loaded_teams = quick ? std::vector<int>{4, 16, 64} : std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128};
    c.loaded_bytes = 64ull << 20;
    c.device_copy_bytes = quick ? 256ull << 20 : 1ull << 30;
    c.peer_bytes = quick ? 64ull << 20 : 256ull << 20;
    c.kernels_per_sample = quick ? 200 : 1000;
    c.flag_round_trips = quick ? 2000 : 10000;
    c.graph_round_trips = quick ? 200 : 1000;
    c.bandwidth_repeat = quick ? Repeat{1, 3, 5, 0} : Repeat{2, 5, 20, 0.1};
    c.latency_repeat = quick ? Repeat{10, 50, 50, 0} : Repeat{20, 200, 200, 0};
    c.dispatch_repeat = quick ? Repeat{1, 5, 5, 0} : Repeat{3, 20, 20, 0};
  } else {
    // The emulator's copies are memcpy on one core: smaller sizes keep a run to seconds.
    c.sweep_bytes = parse_byte_range(quick ? "4K:1M:x16" : "4K:16M:x4");
    c.latency_bytes = parse_byte_range(quick ? "4,1K,64K" : "4:1M:x16");
    c.queued_copy_bytes = parse_byte_range(quick ? "4K,256K" : "4K:1M:x16");
    c.queued_batch_bytes = 4ull << 20;
    c.loaded_teams = {1, 3};  // the emulator holds 4 teams at once
    c.loaded_bytes = 1ull << 20;
    c.device_copy_bytes = quick ? 1ull << 20 : 16ull << 20;
    c.peer_bytes = quick ? 1ull << 20 : 4ull << 20;
    c.kernels_per_sample = quick ? 100 : 1000;
    c.flag_round_trips = quick ? 1000 : 10000;
    c.graph_round_trips = quick ? 50 : 200;
    c.bandwidth_repeat = quick ? Repeat{1, 3, 3, 0} : Repeat{1, 5, 10, 0.02};
    c.latency_repeat = quick ? Repeat{2, 20, 20, 0} : Repeat{5, 50, 50, 0};
    c.dispatch_repeat = quick ? Repeat{1, 3, 3, 0} : Repeat{2, 10, 10, 0};
  }
  return c;
}

LinkConfig LinkConfig::for_peers(const Capabilities& capabilities, const std::vector<int>& devices) {
  LinkConfig c = defaults(capabilities, true);
  c.devices = devices;
  c.per_device = false;
  // Copies at their plateau, timed as `ferry run link` times them; the small ones as --quick does.
  const LinkConfig full = defaults(capabilities, false);
  c.peer_bytes = full.peer_bytes;
  c.bandwidth_repeat = full.bandwidth_repeat;
  return c;
}

LinkConfig LinkConfig::for_models(const Capabilities& capabilities, int device, bool with_pageable) {
  LinkConfig c = defaults(capabilities, true);
  c.devices = {device};
  c.host_memory = {MemoryKind::pinned, MemoryKind::mapped};
  if (with_pageable) c.host_memory.push_back(MemoryKind::pageable);
  if (capabilities.gpu_timings) {
    c.sweep_bytes = parse_byte_range("16M:256M:x4");
    // The fixed costs are what models of many small steps multiply: measure
    // them as fully as `ferry run link` does. A per-kernel figure then carries
    // a thousandth of its sample's launch and sync, not a two-hundredth.
    const LinkConfig full = defaults(capabilities, false);
    c.flag_round_trips = full.flag_round_trips;
    c.graph_round_trips = full.graph_round_trips;
    c.kernels_per_sample = full.kernels_per_sample;
    c.dispatch_repeat = full.dispatch_repeat;
    // Every chunk size a stream sweeps: the copy-engine designs' ceiling per chunk.
    c.queued_copy_bytes = full.queued_copy_bytes;
    c.loaded_teams = full.loaded_teams;
  }
  return c;
}

const std::vector<Section>& sections() {
  static const std::vector<Section> all = {
      {"bandwidth",
       "Host <-> device bandwidth: copy engine, CUDA events around each copy (bidirectional counts the bytes of both directions)"},
      {"zero_copy", "Zero-copy: one kernel reads or writes mapped host memory, events around it"},
      {"copy_latency", "Small-copy latency: pinned memory; host clock (copy + stream sync) and device clock (events)"},
      {"dispatch",
       "Kernel dispatch: empty kernels, host clock (per-kernel rows divide a sample of back-to-back kernels)"},
      {"flag",
       "Persistent kernel: host rings a doorbell in mapped memory, the running kernel echoes it (a relaxed store; "
       "then a release store, what a flag that publishes data pays), host clock per round trip, every echo "
       "checked; one thread's dependent reads of mapped memory, events, per read; and the released echo with a 4 KiB "
       "chunk read from mapped memory and written back before it, every byte checked"},
      {"zero_copy_load",
       "Zero-copy under load: teams copy mapped host memory to mapped host memory (both ways at once), "
       "events around the kernel, per direction; meanwhile one thread times dependent reads of mapped "
       "memory (a doorbell poll's round trip), device clock"},
      {"copy_queue",
       "Copies of one size queued back to back on a stream (no sync between), events around the batch, per "
       "copy (bidir: a copy each way at once on two streams, bytes of both counted)"},
      {"device_copy", "Device-to-device copy on one device (bytes copied; memory traffic is twice this)"},
      {"peer_bandwidth", "Peer copies: source on one device, destination on the other, events"},
      {"peer_latency", "Peer latency: 8-byte copy; host clock (copy + stream sync) and device clock (events)"},
      {"peer_bidirectional",
       "Peer copies both ways at once: one graph of pairs in a chain (fork, both copies, join, the next pair), events; per pair (bytes of both directions counted)"},
      {"peer_sm",
       "Peer SM copies both ways at once: a kernel on each device, 16 bytes a thread, events (bytes of both directions counted)"},
      {"peer_flag",
       "Peer flags: a kernel on one device stores a tag into the other's memory, the kernel there answers into the first's, round trips timed by the first kernel's clock; one way = half a round trip"},
      {"ceiling", "Ceilings: best median over the sweep against the link's theoretical rate"},
  };
  return all;
}

const std::vector<std::string> checked_sections = {
    "copy_latency", "dispatch",       "flag",         "bandwidth",          "zero_copy", "zero_copy_load", "copy_queue",
    "device_copy",  "peer_bandwidth", "peer_latency", "peer_bidirectional", "peer_sm",   "peer_flag"};

void parse_corruption(std::string_view text, LinkConfig& config) {
  const auto at = text.find('@');
  config.corrupt_section = std::string(text.substr(0, at));
  config.corrupt_row = at == std::string_view::npos
                           ? 1
                           : parse_positive_int(text.substr(at + 1), fmt::format("{}='{}': the row after '@'",
                                                                                 corrupt_output_variable, text));
}

namespace {

// Why a run of `c` measures no checked row of `section`; empty when it does.
std::string unmeasured(const LinkConfig& c, const Capabilities& capabilities, const std::string& section) {
  if (section.starts_with("peer_")) return c.devices.size() < 2 ? "they need 2 devices (--devices 0,1)" : "";
  if (!c.per_device) return "this run measures peers alone";
  if (section == "copy_latency" && c.latency_bytes.empty()) return "no latency size is selected";
  if (section == "dispatch" && !capabilities.graphs) return "its checked rows replay graphs, which the backend has not";
  if ((section == "flag" || section.starts_with("zero_copy")) && !capabilities.mapped_memory)
    return "the backend cannot map host memory into a device";
  if (section == "zero_copy" &&
      std::none_of(c.sweep_bytes.begin(), c.sweep_bytes.end(), [](std::uint64_t b) { return b % 16 == 0; }))
    return "no size of the sweep is a multiple of 16 bytes";
  if (section == "zero_copy_load" && c.loaded_teams.empty()) return "no team count is selected";
  if (section == "copy_queue" && c.queued_copy_bytes.empty()) return "no queued copy size is selected";
  return "";
}

void validate_corruption(const LinkConfig& c, const Capabilities& capabilities) {
  if (c.corrupt_section.empty()) return;
  if (std::find(checked_sections.begin(), checked_sections.end(), c.corrupt_section) == checked_sections.end())
    throw UsageError(fmt::format("{}='{}' names no checked section of link's table: choose one of {}",
                                 corrupt_output_variable, c.corrupt_section,
                                 join(checked_sections, ", ", [](const std::string& s) { return s; })));
  if (const std::string why = unmeasured(c, capabilities, c.corrupt_section); !why.empty())
    throw UsageError(fmt::format("{}='{}': this run measures no {} rows: {}", corrupt_output_variable,
                                 c.corrupt_section, c.corrupt_section, why));
}

// The most device memory one of link's steps holds at once, and the option that sized it.
struct DeviceNeed {
  std::uint64_t bytes = 0;
  std::string asked_by;  // "--device-copy-size 4 TiB"
  const char* why = "";
};

DeviceNeed largest_device_need(const LinkConfig& config) {
  // A copy holds a source and a destination of its size at once; the queued copies hold
  // a batch (at least four copies of the largest size) each way.
  constexpr const char* copy = "a source and a destination";
  std::vector<DeviceNeed> needs = {
      {2 * config.sweep_bytes.back(), fmt::format("--sizes up to {}", format_bytes(config.sweep_bytes.back())), copy},
      {2 * config.device_copy_bytes, fmt::format("--device-copy-size {}", format_bytes(config.device_copy_bytes)),
       copy},
      {2 * config.peer_bytes, fmt::format("--peer-size {}", format_bytes(config.peer_bytes)), copy}};
  if (!config.queued_copy_bytes.empty())
    needs.push_back({2 * std::max(config.queued_batch_bytes, 4 * config.queued_copy_bytes.back()),
                     fmt::format("--queued-sizes up to {}", format_bytes(config.queued_copy_bytes.back())),
                     "a batch of queued copies each way"});
  return *std::max_element(needs.begin(), needs.end(),
                           [](const DeviceNeed& a, const DeviceNeed& b) { return a.bytes < b.bytes; });
}

}  // namespace

void validate(Backend& backend, const LinkConfig& config) {
  if (config.devices.empty()) throw UsageError("no device selected");
  if (std::set<int>(config.devices.begin(), config.devices.end()).size() != config.devices.size())
    throw UsageError("a device is listed twice in --devices");
  if (config.sweep_bytes.empty()) throw UsageError("the size sweep is empty");
  if (config.host_memory.empty()) throw UsageError("no host memory kind selected");
  validate_corruption(config, backend.capabilities());

  const std::uint64_t largest = config.sweep_bytes.back();
  for (std::uint64_t bytes : config.queued_copy_bytes)
    if (bytes == 0) throw UsageError("a queued copy size must be at least 1 byte");
  const DeviceNeed need = largest_device_need(config);
  for (int device : config.devices) {
    const DeviceStatus status = backend.device_status(device);  // throws for a device that does not exist
    if (need.bytes > status.free_bytes)
      throw UsageError(fmt::format("{} needs {} on device {} ({}), which has {} free", need.asked_by,
                                   format_bytes(need.bytes), device, need.why, format_capacity(status.free_bytes)));
  }
  const std::uint64_t host_bytes = read_host_facts().memory_bytes;
  if (host_bytes > 0 && 2 * largest > host_bytes)
    throw UsageError(fmt::format("--sizes up to {} needs {} of host memory (a source and a destination); this host "
                                 "has {}",
                                 format_bytes(largest), format_bytes(2 * largest), format_capacity(host_bytes)));
}

model::DeviceProfile& LinkRun::profile_of(int device) {
  auto& devices = outcome.profile.devices;
  auto it = std::find_if(devices.begin(), devices.end(), [&](const auto& d) { return d.device == device; });
  if (it != devices.end()) return *it;
  devices.push_back({.device = device, .name = gpu(device).name, .pcie_theoretical_Bps = pcie_Bps(device)});
  return devices.back();
}

double LinkRun::pcie_Bps(int device) const {
  const PcieLink& p = gpu(device).pcie;
  return model::pcie_Bps(p.max_generation, p.max_width);
}

std::string LinkRun::pcie_basis(int device) const {
  const PcieLink& p = gpu(device).pcie;
  return model::pcie_name(p.max_generation, p.max_width);
}

bool LinkRun::corrupts(std::string_view section) {
  if (section != config.corrupt_section || ++rows_asking != config.corrupt_row) return false;
  corrupted = true;
  return true;
}

void LinkRun::corrupt_word(Stream& stream, Buffer& buffer, std::size_t word) {
  std::byte* at = buffer.data() + word * sizeof(std::uint64_t);
  const std::size_t bytes = std::min(sizeof(std::uint64_t), buffer.bytes() - word * sizeof(std::uint64_t));
  if (buffer.host_visible()) {
    poison_on_host(at, bytes);
    return;
  }
  stream.fill(at, poison_byte, bytes);
  stream.synchronize();
}

void LinkRun::skip(std::string why) {
  auto& skipped = outcome.result.skipped;
  if (std::find(skipped.begin(), skipped.end(), why) == skipped.end()) skipped.push_back(std::move(why));
}

namespace {

std::string memory_list(const std::vector<MemoryKind>& kinds) {
  return join(kinds, ",", [](MemoryKind k) { return std::string(to_string(k)); });
}

std::string size_list(const std::vector<std::uint64_t>& sizes) {
  return join(sizes, ",", [](std::uint64_t s) { return format_bytes(s); });
}

}  // namespace

LinkOutcome run(Backend& backend, const Machine& machine, const LinkConfig& config, const Progress& progress) {
  validate(backend, config);
  LinkRun run{backend, config, progress, machine, PatternChecker(backend), {}};

  WorkloadResult& result = run.outcome.result;
  result.workload = "link";
  result.config = {
      {"devices", join(config.devices, ",", [](int d) { return std::to_string(d); })},
      {"sweep", size_list(config.sweep_bytes)},
      {"host_memory", memory_list(config.host_memory)},
      {"latency_sizes", size_list(config.latency_bytes)},
      {"queued_copy_sizes", size_list(config.queued_copy_bytes)},
      {"device_copy_bytes", static_cast<std::int64_t>(config.device_copy_bytes)},
      {"peer_bytes", static_cast<std::int64_t>(config.peer_bytes)},
      {"kernels_per_sample", static_cast<std::int64_t>(config.kernels_per_sample)},
      {"flag_round_trips", static_cast<std::int64_t>(config.flag_round_trips)},
      {"graph_round_trips", static_cast<std::int64_t>(config.graph_round_trips)},
  };
  result.sections = sections();

  progress.expect(plan_run(backend, config).steps.size());

  run.outcome.profile.backend = backend.name();
  run.outcome.profile.gpu_timings = backend.capabilities().gpu_timings;
  run.outcome.profile.created_utc = utc_now_iso8601();

  for (int device : config.devices) {
    run.profile_of(device);
    if (!config.per_device) continue;
    if (run.pcie_Bps(device) == 0)
      run.skip(fmt::format("PCIe model for device {}: the backend reports no PCIe generation and width", device));
    measure_copy_latency(run, device);
    measure_dispatch(run, device);
    measure_flag_round_trip(run, device);
    measure_mapped_read_latency(run, device);
    measure_chunk_round_trip(run, device);
    measure_host_bandwidth(run, device);
    measure_zero_copy(run, device);
    measure_zero_copy_under_load(run, device);
    measure_queued_copies(run, device);
    measure_device_copy(run, device);
    add_ceilings(run, device);
  }
  measure_peers(run);
  measure_peer_flags(run);
  if (!config.corrupt_section.empty() && !run.corrupted)
    throw UsageError(fmt::format("{}='{}@{}': this run has {} checked {} row{}, so the hook changed nothing",
                                 corrupt_output_variable, config.corrupt_section, config.corrupt_row, run.rows_asking,
                                 config.corrupt_section, run.rows_asking == 1 ? "" : "s"));
  if (!backend.capabilities().gpu_timings)
    result.notes.push_back("emulator: every byte is checked as on a GPU, but the timings are CPU timings");
  return std::move(run.outcome);
}

}  // namespace ferry::link
