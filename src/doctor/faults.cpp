#include "doctor/faults.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/text.hpp"
#include "doctor/judge/latency.hpp"

namespace ferry::doctor {
namespace {

int parse_index(std::string_view text, std::string_view condition) {
  return parse_hook_number(text, condition, "a device number");
}

// "hw-thermal" -> clock_event::hw_thermal; the names are the hook's, the bits NVML's.
std::uint64_t clock_reason(std::string_view name, std::string_view condition) {
  static constexpr std::pair<std::string_view, std::uint64_t> reasons[] = {
      {"power-cap", clock_event::sw_power_cap},     {"sw-thermal", clock_event::sw_thermal},
      {"hw-thermal", clock_event::hw_thermal},      {"hw-slowdown", clock_event::hw_slowdown},
      {"power-brake", clock_event::hw_power_brake},
  };
  for (const auto& [known, bit] : reasons)
    if (name == known) return bit;
  throw UsageError(fmt::format("{}: '{}' wants clocks=D:REASON, REASON one of power-cap, sw-thermal, hw-thermal, "
                               "hw-slowdown or power-brake",
                               fault_variable, condition));
}

GpuFacts* gpu_of(Inputs& in, int device) {
  for (GpuFacts& g : in.machine.gpus)
    if (g.index == device) return &g;
  return nullptr;
}

// A condition of the hook, "name=value".
struct Condition {
  std::string_view whole;
  std::string_view name;
  std::string_view value;  // "" without '='
};
std::vector<Condition> conditions_of(std::string_view hook) {
  std::vector<Condition> all;
  for (std::string_view whole : split(hook, ',')) {
    const std::size_t equals = whole.find('=');
    all.push_back({whole, whole.substr(0, equals), equals == std::string_view::npos ? "" : whole.substr(equals + 1)});
  }
  return all;
}

std::pair<int, int> parse_pair(std::string_view value, std::string_view condition) {
  const std::size_t dash = value.find('-');
  try {
    if (dash != std::string_view::npos) {
      std::size_t used_first = 0, used_second = 0;
      const std::string first(value.substr(0, dash)), second(value.substr(dash + 1));
      const int a = std::stoi(first, &used_first), b = std::stoi(second, &used_second);
      if (used_first == first.size() && used_second == second.size() && a >= 0 && b >= 0 && a != b) return {a, b};
    }
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("{}: '{}' wants two different device numbers, e.g. {}=0-1", fault_variable, condition,
                               condition.substr(0, condition.find('='))));
}

}  // namespace

bool names_pair(const std::pair<int, int>& named, int first, int second) {
  return (named.first == first && named.second == second) || (named.first == second && named.second == first);
}

int parse_hook_number(std::string_view text, std::string_view condition, std::string_view what) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(std::string(text), &used);
    if (used == text.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("{}: '{}' in '{}' is not {}", fault_variable, text, condition, what));
}

void apply_fault(std::string_view hook, Inputs& in) {
  for (const auto& [condition, name, value] : conditions_of(hook)) {
    if (name == "pcie") {  // pcie=GENxWIDTH: every GPU's link trained lower than Gen5 x16
      const std::size_t x = value.find('x');
      const int generation = x == std::string_view::npos ? 0 : parse_index(value.substr(0, x), condition);
      const int width = x == std::string_view::npos ? 0 : parse_index(value.substr(x + 1), condition);
      if (generation == 0 || width == 0)
        throw UsageError(fmt::format("{}: '{}' wants pcie=GENxWIDTH, e.g. pcie=4x8", fault_variable, condition));
      for (GpuFacts& g : in.machine.gpus) g.pcie = {generation, width, 5, 16, "FERRY_FAULT_DOCTOR"};
    } else if (name == "nvlink-down") {  // nvlink-down=D: GPU D has 16 NVLinks up, the others 18
      const int device = parse_index(value, condition);
      for (GpuFacts& g : in.machine.gpus) g.nvlinks = g.index == device ? 16 : 18;
    } else if (name == "no-peer") {  // no-peer=A-B: the pair has no peer access either way
      const std::size_t dash = value.find('-');
      const int a = parse_index(value.substr(0, dash), condition);
      const int b = dash == std::string_view::npos ? -1 : parse_index(value.substr(dash + 1), condition);
      for (PeerFacts& p : in.machine.peers)
        if ((p.from == a && p.to == b) || (p.from == b && p.to == a)) p.direct_access = false;
    } else if (name == "other-process") {  // other-process=D: another process has work on GPU D
      const int device = parse_index(value, condition);
      for (GpuFacts& g : in.machine.gpus)
        if (g.index == device) {
          g.other_processes = 1;
          g.other_process_ids = {4242};
        }
    } else if (name == "far-numa") {  // far-numa=D: GPU D on node 1, the process on node 0
      const int device = parse_index(value, condition);
      in.placement.process_nodes = {0};
      in.placement.device_nodes = {{device, 1}};
    } else if (name == "persistence-off") {  // persistence-off=D: GPU D's driver state goes with its last process
      if (GpuFacts* g = gpu_of(in, parse_index(value, condition))) g->persistence_mode = false;
    } else if (name == "clocks") {  // clocks=D:REASON: GPU D held its clocks for REASON while the copy ran
      const std::size_t colon = value.find(':');
      const int device = parse_index(value.substr(0, colon), condition);
      const std::uint64_t reason =
          clock_reason(colon == std::string_view::npos ? "" : value.substr(colon + 1), condition);
      if (GpuFacts* g = gpu_of(in, device)) g->clock_events = g->clock_events.value_or(0) | reason;
    } else if (name == "mig") {  // mig=D: GPU D runs in MIG mode
      if (GpuFacts* g = gpu_of(in, parse_index(value, condition))) g->mig_mode = true;
    } else if (name == "exclusive") {  // exclusive=D: one process at a time may use GPU D
      if (GpuFacts* g = gpu_of(in, parse_index(value, condition))) g->compute_mode = ComputeMode::exclusive_process;
    } else if (name == "prohibited") {  // prohibited=D: no process may use GPU D
      if (GpuFacts* g = gpu_of(in, parse_index(value, condition))) g->compute_mode = ComputeMode::prohibited;
    } else if (name == "pcie-traffic") {  // pcie-traffic=D: 3.2 GB/s in, 0.4 GB/s out on GPU D while doctor idled
      const int device = parse_index(value, condition);
      std::erase_if(in.idle_pcie_traffic, [&](const auto& t) { return t.first == device; });
      in.idle_pcie_traffic.emplace_back(device, PcieTraffic{.rx_Bps = 3.2e9, .tx_Bps = 0.4e9});
    } else if (name == "far-cpus") {  // far-cpus=D: NVML puts GPU D near CPUs this process may not run on
      const int device = parse_index(value, condition);
      const int beyond = in.placement.process_cpus.empty() ? 0 : in.placement.process_cpus.back() + 1;
      if (in.placement.process_cpus.empty()) in.placement.process_cpus = {0};
      for (GpuFacts& g : in.machine.gpus)
        if (g.index == device) g.near_cpus = {beyond + 1, beyond + 2};
    } else if (name == "far-pinned") {  // far-pinned=D: GPU D on node 0, pinned buffers landing on node 1
      const int device = parse_index(value, condition);
      in.placement.device_nodes = {{device, 0}};
      in.placement.process_nodes = {0};
      in.placement.pinned_node = 1;
    } else if (name == "slow-launch") {  // slow-launch=D: every latency its model's reference, GPU D's launch 2x
      provoke_slow_launch(in, parse_index(value, condition));
    } else if (name == "slow-graph") {  // slow-graph=D: the same, GPU D's graph per kernel 2x
      provoke_slow_latency(in, parse_index(value, condition), &model::DeviceProfile::graph_per_kernel_s);
    } else if (name == "nccl-slow" || name == "nccl-corrupt") {
      // nccl-slow=A-B: pair A-B's NCCL at 0.13x of p2p-ce's b(2 MiB), timed as a GPU's; nccl-corrupt=A-B: one
      // byte of a message between A and B corrupted on arrival. Not facts of Inputs: run_pass's nccl_pass()
      // applies them to the pairs it measures (doctor/measure/nccl.cpp); here the value is only checked.
      nccl_faults(condition);
    } else {
      throw UsageError(fmt::format(
          "{}: unknown condition '{}': choose pcie=GENxWIDTH, nvlink-down=D, no-peer=A-B, "
          "other-process=D, far-numa=D, far-cpus=D, far-pinned=D, persistence-off=D, clocks=D:REASON, mig=D, "
          "exclusive=D, prohibited=D, pcie-traffic=D, slow-launch=D, slow-graph=D, nccl-slow=A-B or "
          "nccl-corrupt=A-B (and under mpirun slow-rank=R or corrupt-pair=R)",
          fault_variable, condition));
    }
  }
}

void provoke_slow_launch(Inputs& in, int device) {
  provoke_slow_latency(in, device, &model::DeviceProfile::launch_and_sync_s);
}

void provoke_slow_latency(Inputs& in, int device, double model::DeviceProfile::*figure) {
  const bool cpu_timings = !in.figures.gpu_timings;
  in.figures.gpu_timings = true;
  if (cpu_timings) in.figures.peers.clear();
  for (model::DeviceProfile& p : in.figures.devices) {
    const LatencyReference* known = latency_reference(p.name);
    const LatencyReference& ref = known ? *known : latency_references().front();
    if (cpu_timings) p = {.device = p.device, .name = {}};
    p.name = std::string(ref.gpu);
    for (const LatencyFigure& figure : latency_figures()) p.*figure.measured = ref.*figure.reference;
    if (p.device == device) p.*figure *= 2;
  }
}

NcclFaults nccl_faults(std::string_view hook) {
  NcclFaults faults;
  for (const auto& [condition, name, value] : conditions_of(hook)) {
    if (name == "nccl-slow") faults.slow.push_back(parse_pair(value, condition));
    else if (name == "nccl-corrupt") faults.corrupt.push_back(parse_pair(value, condition));
  }
  return faults;
}

void provoke_slow_nccl(std::vector<NcclPair>& pairs, int first, int second) {
  for (NcclPair& p : pairs) {
    if (p.left_out || !names_pair({first, second}, p.first, p.second)) continue;
    p.gpu_timings = true;
    p.p2p_ce = {.how = "FERRY_FAULT_DOCTOR", .rate_Bps = 337.9e9, .wrong_words = p.p2p_ce.wrong_words};
    p.nccl = {.how = "FERRY_FAULT_DOCTOR", .rate_Bps = 0.13 * 337.9e9, .wrong_words = p.nccl.wrong_words};
  }
}

FleetFaults take_fleet_faults(std::string& hook) {
  FleetFaults faults;
  std::vector<std::string> rest;
  for (const auto& [condition, name, value] : conditions_of(hook)) {
    if (name == "slow-rank") faults.slow_rank = parse_hook_number(value, condition, "a rank");
    else if (name == "corrupt-pair") faults.corrupt_pair = parse_hook_number(value, condition, "a rank");
    else if (!condition.empty()) rest.emplace_back(condition);
  }
  hook = join(rest, ",", [](const std::string& s) { return s; });
  return faults;
}

}  // namespace ferry::doctor
