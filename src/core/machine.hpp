#pragma once
// What a run ran on: the host, the GPUs and how they are linked. Plain data;
// the backend fills the GPU part, core/host_facts the host part.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ferry {

struct PcieLink {
  int generation = 0;  // as the link runs now (an idle link may have dropped to a lower generation)
  int width = 0;
  int max_generation = 0;  // the most this GPU and this slot can run
  int max_width = 0;
  std::string source;  // "nvml", "sysfs" or "" when unknown
};

// Bytes per second over the GPU's PCIe link as NVML counted them in a 20 ms
// window: rx into the GPU, tx out of it, whoever moved them.
struct PcieTraffic {
  double rx_Bps = 0;
  double tx_Bps = 0;
};

// Who may create a context on the GPU (nvidia-smi's compute mode).
enum class ComputeMode { shared, exclusive_process, prohibited };

inline const char* compute_mode_name(ComputeMode mode) {
  switch (mode) {
    case ComputeMode::shared: return "default";
    case ComputeMode::exclusive_process: return "exclusive process";
    case ComputeMode::prohibited: return "prohibited";
  }
  return "?";
}

// NVML's clock event reasons, bits of GpuFacts::clock_events. The values are
// NVML's (nvmlClocksEventReason*, once nvmlClocksThrottleReason*), kept here so
// that judging them needs no nvml.h.
namespace clock_event {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal = 0x20;
inline constexpr std::uint64_t hw_thermal = 0x40;
inline constexpr std::uint64_t hw_power_brake = 0x80;
}  // namespace clock_event

struct GpuFacts {
  int index = 0;
  std::string name;
  std::string pci_bus_id;
  // As nvidia-smi and dcgm-exporter print it ("GPU-" and 32 hex digits): the same GPU whatever its index, so that
  // doctor's --baseline matches GPUs by it. The emulator's: "EMU-HOST-INDEX".
  std::string uuid;
  std::uint64_t memory_bytes = 0;
  int multiprocessors = 0;
  std::string compute_capability;
  double memory_bandwidth_Bps = 0;  // theoretical, from memory clock and bus width; 0 when unknown
  PcieLink pcie;
  int nvlinks = 0;  // active NVLinks, to GPUs and to switches alike, where NVML reports them
  // Processes other than this one with work on the GPU when the facts were read
  // (NVML's compute processes), counted as if this process had work there too
  // (doctor reads them mid-copy); -1 where NVML does not say. The ids are
  // NVML's, which inside a container are the host's.
  int other_processes = -1;
  std::vector<unsigned> other_process_ids{};
  // The GPU's state as NVML gave it when the facts were read; empty where NVML
  // does not say (no NVML, a call that failed, a GPU without the feature).
  std::optional<bool> persistence_mode{};
  std::optional<bool> mig_mode{};  // the current mode, not the one pending a reset
  std::optional<ComputeMode> compute_mode{};
  std::optional<std::uint64_t> clock_events{};  // clock_event bits active when read
  std::optional<PcieTraffic> pcie_traffic{};
  std::vector<int> near_cpus{};  // NVML's CPU affinity: the CPUs nearest the GPU; empty where NVML does not say
};

struct PeerFacts {
  int from = 0;
  int to = 0;
  bool direct_access = false;  // cudaDeviceCanAccessPeer
  int nvlinks = 0;             // active NVLinks between the two, where NVML reports them
  int nvlink_version = 0;
  // "nvml" where NVML looked for the pair's NVLinks, so that 0 means none (a
  // PCIe pair); "" where nobody looked, so that 0 means unknown.
  std::string nvlink_source{};
};

struct HostFacts {
  std::string hostname;
  std::string cpu;
  int logical_cores = 0;
  std::uint64_t memory_bytes = 0;
  std::string os;
};

struct Machine {
  HostFacts host;
  std::string backend;       // "cuda" or "emu"
  bool gpu_timings = false;  // false on the emulator: its timings are CPU timings
  std::string driver_version;
  std::string runtime_version;
  std::vector<GpuFacts> gpus;
  std::vector<PeerFacts> peers;
};

HostFacts read_host_facts();

}  // namespace ferry
