#include "doctor/judge/gpu_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/text.hpp"
#include "core/units.hpp"
#include "doctor/thresholds.hpp"
#include "model/link_model.hpp"

namespace ferry::doctor {
namespace {

struct ClockReason {
  std::uint64_t bit;
  const char* name;  // nvidia-smi -q -d PERFORMANCE's words
};
// Those that hold the clocks below what the GPU would run for this work.
constexpr ClockReason slowing[] = {
    {clock_event::sw_power_cap, "SW power cap"},      {clock_event::sw_thermal, "SW thermal slowdown"},
    {clock_event::hw_thermal, "HW thermal slowdown"}, {clock_event::hw_slowdown, "HW slowdown"},
    {clock_event::hw_power_brake, "HW power brake"},
};
// Those that are no fault: nothing to do, clocks someone chose, or a group held to its slowest.
constexpr ClockReason harmless[] = {
    {clock_event::gpu_idle, "idle"},
    {clock_event::applications_clocks, "applications clocks"},
    {clock_event::sync_boost, "sync boost"},
};

Finding nvml_silent(std::string check, int device) {
  return not_judged(std::move(check), gpu_subject(device), "NVML does not say");
}

void warn(Finding& f, std::string cause, std::string action) {
  f.verdict = Verdict::warn;
  f.cause = std::move(cause);
  f.action = std::move(action);
}

void other_processes(const Inputs& in, int device, std::vector<Finding>& out) {
  const GpuFacts* g = gpu_facts(in.machine, device);
  if (!g || g->other_processes < 0) {
    out.push_back(nvml_silent("other processes", device));
    return;
  }
  Finding f{.check = "other processes", .subject = gpu_subject(device), .verdict = Verdict::ok};
  f.measured = std::to_string(g->other_processes);
  f.expected = "0";
  f.basis = "NVML's compute processes on the GPU, read while doctor's copy ran";
  if (g->other_processes > 0)
    warn(f,
         fmt::format("{} other process{} had work on GPU {} while doctor measured (NVML ids {}): it shares the GPU's "
                     "links and memory, and every figure here is low by what it took",
                     g->other_processes, g->other_processes == 1 ? "" : "es", device,
                     join(g->other_process_ids, ", ", [](unsigned id) { return std::to_string(id); })),
         "`nvidia-smi` names them; measure again when the GPU is yours alone");
  out.push_back(std::move(f));
}

void persistence_mode(const Inputs& in, int device, std::vector<Finding>& out) {
  const GpuFacts* g = gpu_facts(in.machine, device);
  if (!g || !g->persistence_mode) {
    out.push_back(nvml_silent("persistence mode", device));
    return;
  }
  Finding f{.check = "persistence mode", .subject = gpu_subject(device), .verdict = Verdict::ok};
  f.measured = *g->persistence_mode ? "on" : "off";
  f.expected = "on";
  f.basis = "NVML: with it on, the driver keeps the GPU initialised while no process uses it";
  if (!*g->persistence_mode)
    warn(f,
         "persistence mode off: the first CUDA call of each process pays the driver's start-up (seconds on a large "
         "machine)",
         "`sudo nvidia-smi -pm 1`, or run the persistence daemon (nvidia-persistenced) at boot");
  out.push_back(std::move(f));
}

void clock_events(const Inputs& in, int device, std::vector<Finding>& out) {
  const GpuFacts* g = gpu_facts(in.machine, device);
  if (!g || !g->clock_events) {
    out.push_back(nvml_silent("clock events", device));
    return;
  }
  const std::uint64_t events = *g->clock_events;
  std::vector<std::string> active;
  std::uint64_t named = 0;
  auto name_active = [&](const auto& reasons) {
    for (const ClockReason& r : reasons)
      if (events & r.bit) {
        active.emplace_back(r.name);
        named |= r.bit;
      }
  };
  name_active(slowing);
  name_active(harmless);
  if (events & ~named) active.push_back(fmt::format("other (0x{:x})", events & ~named));
  Finding f{.check = "clock events", .subject = gpu_subject(device), .verdict = Verdict::ok};
  f.measured = active.empty() ? "none" : join(active, ", ", [](const std::string& s) { return s; });
  f.expected = "no power or thermal slowdown";
  f.basis = "NVML's clock event reasons, read while doctor's copy ran (idle and applications clocks are no fault)";
  if (const std::string slowed = clock_slowdowns(events); !slowed.empty())
    warn(f, "the GPU slowed its clocks during the pass: " + slowed,
         "check the cooling and the power limits; `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER` while a run goes "
         "names the reasons and shows the temperatures and limits behind them");
  out.push_back(std::move(f));
}

void mig_mode(const Inputs& in, int device, std::vector<Finding>& out) {
  const GpuFacts* g = gpu_facts(in.machine, device);
  if (!g || !g->mig_mode) {
    out.push_back(nvml_silent("mig mode", device));
    return;
  }
  Finding f{.check = "mig mode", .subject = gpu_subject(device), .verdict = Verdict::ok};
  f.measured = *g->mig_mode ? "on" : "off";
  f.expected = "off";
  f.basis = "NVML's current MIG mode";
  if (*g->mig_mode)
    warn(f, "a MIG instance has a share of the copy engines and memory: figures are the instance's, not the GPU's",
         fmt::format("hold the figures against the instance's share, or measure the whole GPU with MIG off (`sudo "
                     "nvidia-smi -i {} -mig 0`, then a GPU reset)",
                     device));
  out.push_back(std::move(f));
}

void compute_mode(const Inputs& in, int device, std::vector<Finding>& out) {
  const GpuFacts* g = gpu_facts(in.machine, device);
  if (!g || !g->compute_mode) {
    out.push_back(nvml_silent("compute mode", device));
    return;
  }
  Finding f{.check = "compute mode", .subject = gpu_subject(device), .verdict = Verdict::ok};
  f.measured = compute_mode_name(*g->compute_mode);
  f.expected = compute_mode_name(ComputeMode::shared);
  f.basis = "NVML: who may create a CUDA context on the GPU";
  const std::string action =
      fmt::format("`sudo nvidia-smi -i {} -c DEFAULT` if processes are to share the GPU; leave it if the scheduler "
                  "set it on purpose",
                  device);
  if (*g->compute_mode == ComputeMode::exclusive_process)
    warn(f,
         fmt::format("exclusive process: one process at a time can use GPU {}; another that tries (a second rank, a "
                     "profiler, a monitor with a CUDA context) fails at its first CUDA call",
                     device),
         action);
  else if (*g->compute_mode == ComputeMode::prohibited)
    warn(f, fmt::format("prohibited: no process can create a CUDA context on GPU {}", device), action);
  out.push_back(std::move(f));
}

void idle_pcie_traffic(const Inputs& in, int device, std::vector<Finding>& out) {
  const auto read = std::find_if(in.idle_pcie_traffic.begin(), in.idle_pcie_traffic.end(),
                                 [&](const auto& t) { return t.first == device; });
  if (read == in.idle_pcie_traffic.end()) {
    out.push_back(nvml_silent("pcie traffic", device));
    return;
  }
  const PcieTraffic& t = read->second;
  const double most = std::max(t.rx_Bps, t.tx_Bps);
  Finding f{.check = "pcie traffic",
            .subject = gpu_subject(device),
            .verdict = Verdict::ok,
            .value = most,
            .model = idle_pcie_traffic_Bps,
            .unit = Unit::bytes_per_second};
  f.measured = fmt::format("{} in, {} out", rate_text(t.rx_Bps), rate_text(t.tx_Bps));
  f.expected = fmt::format("<= {} each way", rate_text(idle_pcie_traffic_Bps));
  f.basis = "NVML's PCIe counters over 20 ms, read after the pass with nothing of doctor's moving";
  if (most > idle_pcie_traffic_Bps) {
    const GpuFacts* g = gpu_facts(in.machine, device);
    const double link = g ? model::pcie_Bps(g->pcie.max_generation, g->pcie.max_width) : 0;
    const std::string share =
        link > 0 ? fmt::format(" ({:.0f}% of {}'s {} each way)", 100 * most / link,
                               model::pcie_name(g->pcie.max_generation, g->pcie.max_width), rate_text(link))
                 : "";
    warn(f,
         fmt::format("PCIe traffic that is not ferry's: {:.1f} GB/s in, {:.1f} GB/s out while doctor was idle, above "
                     "the {:.1f} GB/s an idle GPU stays under{}: a process in another container or MIG instance, a "
                     "NIC's GPUDirect RDMA or a peer's copies over PCIe use this GPU's link, and may have taken their "
                     "share of the figures above",
                     to_GBps(t.rx_Bps), to_GBps(t.tx_Bps), to_GBps(idle_pcie_traffic_Bps), share),
         fmt::format("`nvidia-smi dmon -s t -i {}` shows the traffic over time; `nvidia-smi` and the other containers' "
                     "processes show whose it is; measure again when it stops",
                     device));
  }
  out.push_back(std::move(f));
}

}  // namespace

std::string clock_slowdowns(std::uint64_t events) {
  std::vector<std::string> names;
  for (const ClockReason& r : slowing)
    if (events & r.bit) names.emplace_back(r.name);
  return join(names, ", ", [](const std::string& s) { return s; });
}

void judge_gpu_state(const Inputs& in, std::vector<Finding>& out) {
  for (auto check : {other_processes, persistence_mode, clock_events, mig_mode, compute_mode, idle_pcie_traffic})
    for (int d : in.devices) check(in, d, out);
}

}  // namespace ferry::doctor
