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

struct GpuFacts {
  int index = 0;
  std::string name;
  std::string pci_bus_id;
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
};

struct PeerFacts {
  int from = 0;
  int to = 0;
  bool direct_access = false;  // cudaDeviceCanAccessPeer
  int nvlinks = 0;             // active NVLinks between the two, where NVML reports them
  int nvlink_version = 0;
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
