#include "backend/cuda/nvml_facts.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#if FERRY_WITH_NVML
#include <nvml.h>
#endif

namespace ferry::cuda {
namespace {

// sysfs names a PCI function "0000:18:00.0" in lower case.
std::string sysfs_name(std::string bus_id) {
  std::transform(bus_id.begin(), bus_id.end(), bus_id.begin(), [](unsigned char c) { return std::tolower(c); });
  return bus_id;
}

int read_int(const std::string& path) {
  std::ifstream in(path);
  int value = 0;
  in >> value;
  return in ? value : 0;
}

// "32.0 GT/s PCIe" -> 5
int generation_from_speed(const std::string& path) {
  std::ifstream in(path);
  double gts = 0;
  in >> gts;
  if (!in) return 0;
  if (gts >= 60) return 6;
  if (gts >= 30) return 5;
  if (gts >= 15) return 4;
  if (gts >= 7.5) return 3;
  if (gts >= 4.5) return 2;
  if (gts >= 2) return 1;
  return 0;
}

void add_sysfs_pcie(GpuFacts& gpu) {
  const std::string dir = "/sys/bus/pci/devices/" + sysfs_name(gpu.pci_bus_id) + "/";
  PcieLink link;
  link.generation = generation_from_speed(dir + "current_link_speed");
  link.width = read_int(dir + "current_link_width");
  link.max_generation = generation_from_speed(dir + "max_link_speed");
  link.max_width = read_int(dir + "max_link_width");
  if (link.max_generation > 0 && link.max_width > 0) {
    link.source = "sysfs";
    gpu.pcie = link;
  }
}

#if FERRY_WITH_NVML

// The few NVML entry points ferry uses, looked up in the driver's library.
struct Nvml {
  void* library = nullptr;
  decltype(&nvmlInit_v2) init = nullptr;
  decltype(&nvmlShutdown) shutdown = nullptr;
  decltype(&nvmlSystemGetDriverVersion) driver_version = nullptr;
  decltype(&nvmlDeviceGetHandleByPciBusId_v2) handle_by_bus_id = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkGeneration) current_generation = nullptr;
  decltype(&nvmlDeviceGetCurrPcieLinkWidth) current_width = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkGeneration) max_generation = nullptr;
  decltype(&nvmlDeviceGetMaxPcieLinkWidth) max_width = nullptr;
  decltype(&nvmlDeviceGetNvLinkState) nvlink_state = nullptr;
  decltype(&nvmlDeviceGetNvLinkVersion) nvlink_version = nullptr;
  decltype(&nvmlDeviceGetNvLinkRemotePciInfo_v2) nvlink_remote = nullptr;
  decltype(&nvmlDeviceGetNvLinkRemoteDeviceType) nvlink_remote_type = nullptr;
  decltype(&nvmlDeviceGetP2PStatus) p2p_status = nullptr;
  decltype(&nvmlDeviceGetComputeRunningProcesses_v3) compute_processes = nullptr;
  decltype(&nvmlDeviceGetPersistenceMode) persistence_mode = nullptr;
  decltype(&nvmlDeviceGetMigMode) mig_mode = nullptr;
  decltype(&nvmlDeviceGetComputeMode) compute_mode = nullptr;
  decltype(&nvmlDeviceGetPcieThroughput) pcie_throughput = nullptr;
  decltype(&nvmlDeviceGetCpuAffinity) cpu_affinity = nullptr;
  // ...ClocksThrottleReasons in older drivers, ...ClocksEventReasons in newer
  // ones (the old name deprecated), one signature: declared here so either
  // header builds it and either driver answers.
  nvmlReturn_t (*clock_event_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;

  bool open() {
    library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return false;
    auto find = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::decay_t<decltype(fn)>>(dlsym(library, name));
    };
    find(init, "nvmlInit_v2");
    find(shutdown, "nvmlShutdown");
    find(driver_version, "nvmlSystemGetDriverVersion");
    find(handle_by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
    find(current_generation, "nvmlDeviceGetCurrPcieLinkGeneration");
    find(current_width, "nvmlDeviceGetCurrPcieLinkWidth");
    find(max_generation, "nvmlDeviceGetMaxPcieLinkGeneration");
    find(max_width, "nvmlDeviceGetMaxPcieLinkWidth");
    find(nvlink_state, "nvmlDeviceGetNvLinkState");
    find(nvlink_version, "nvmlDeviceGetNvLinkVersion");
    find(nvlink_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    find(nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
    find(p2p_status, "nvmlDeviceGetP2PStatus");
    find(compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3");
    find(persistence_mode, "nvmlDeviceGetPersistenceMode");
    find(mig_mode, "nvmlDeviceGetMigMode");
    find(compute_mode, "nvmlDeviceGetComputeMode");
    find(pcie_throughput, "nvmlDeviceGetPcieThroughput");
    find(cpu_affinity, "nvmlDeviceGetCpuAffinity");
    find(clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!clock_event_reasons) find(clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    return init && shutdown && handle_by_bus_id && init() == NVML_SUCCESS;
  }

  ~Nvml() {
    if (library) {
      if (shutdown) shutdown();
      dlclose(library);
    }
  }
};

int nvlink_major_version(unsigned nvml_version) {
  switch (nvml_version) {
    case NVML_NVLINK_VERSION_1_0: return 1;
    case NVML_NVLINK_VERSION_2_0:
    case NVML_NVLINK_VERSION_2_2: return 2;
    case NVML_NVLINK_VERSION_3_0:
    case NVML_NVLINK_VERSION_3_1: return 3;
    case NVML_NVLINK_VERSION_4_0: return 4;
    case NVML_NVLINK_VERSION_5_0: return 5;
    default: return 0;
  }
}

bool same_function(const nvmlPciInfo_t& remote, const std::string& bus_id) {
  unsigned domain = 0, bus = 0, device = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x", &domain, &bus, &device) != 3) return false;
  return remote.domain == domain && remote.bus == bus && remote.device == device;
}

// A GPU's active NVLinks: those wired straight to another GPU (one entry per
// link, naming the GPU's PCI function) and those wired to an NVSwitch, which
// reach every GPU on the switch.
struct NvLinks {
  std::vector<nvmlPciInfo_t> to_gpus;
  int to_switches = 0;
  int version = 0;
  bool looked = false;  // NVML has the calls: no links found is then none, not unknown
};

NvLinks read_nvlinks(Nvml& nvml, nvmlDevice_t handle) {
  NvLinks links;
  if (!nvml.nvlink_state || !nvml.nvlink_remote) return links;
  links.looked = true;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t active{};
    if (nvml.nvlink_state(handle, link, &active) != NVML_SUCCESS || active != NVML_FEATURE_ENABLED) continue;
    unsigned version = 0;
    if (nvml.nvlink_version && nvml.nvlink_version(handle, link, &version) == NVML_SUCCESS)
      links.version = nvlink_major_version(version);
    nvmlIntNvLinkDeviceType_t type{};
    if (nvml.nvlink_remote_type && nvml.nvlink_remote_type(handle, link, &type) == NVML_SUCCESS &&
        type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
      ++links.to_switches;
      continue;
    }
    nvmlPciInfo_t remote{};
    if (nvml.nvlink_remote(handle, link, &remote) == NVML_SUCCESS) links.to_gpus.push_back(remote);
  }
  return links;
}

bool nvlink_p2p(Nvml& nvml, nvmlDevice_t a, nvmlDevice_t b) {
  if (!nvml.p2p_status) return true;  // older drivers: a switch reaches every GPU on it
  nvmlGpuP2PStatus_t status{};
  return nvml.p2p_status(a, b, NVML_P2P_CAPS_INDEX_NVLINK, &status) == NVML_SUCCESS && status == NVML_P2P_STATUS_OK;
}

// The other processes with work on the GPU. Inside a container NVML gives the
// host's process ids, which getpid() does not: then this process, which holds
// a context on every GPU it has used, is taken to be one of them.
void read_other_processes(Nvml& nvml, nvmlDevice_t handle, GpuFacts& gpu) {
  if (!nvml.compute_processes) return;
  std::vector<nvmlProcessInfo_t> found(64);
  unsigned count = static_cast<unsigned>(found.size());
  if (nvml.compute_processes(handle, &count, found.data()) != NVML_SUCCESS) return;
  const unsigned self = static_cast<unsigned>(getpid());
  bool self_seen = false;
  gpu.other_process_ids.clear();
  for (unsigned i = 0; i < count && i < found.size(); ++i) {
    if (found[i].pid == self) self_seen = true;
    else gpu.other_process_ids.push_back(found[i].pid);
  }
  gpu.other_processes = static_cast<int>(gpu.other_process_ids.size());
  if (!self_seen && gpu.other_processes > 0) --gpu.other_processes;
}

// machine.hpp's copy of the bits judged; the old names are in every header.
static_assert(clock_event::gpu_idle == nvmlClocksThrottleReasonGpuIdle);
static_assert(clock_event::applications_clocks == nvmlClocksThrottleReasonApplicationsClocksSetting);
static_assert(clock_event::sw_power_cap == nvmlClocksThrottleReasonSwPowerCap);
static_assert(clock_event::hw_slowdown == nvmlClocksThrottleReasonHwSlowdown);
static_assert(clock_event::sync_boost == nvmlClocksThrottleReasonSyncBoost);
static_assert(clock_event::sw_thermal == nvmlClocksThrottleReasonSwThermalSlowdown);
static_assert(clock_event::hw_thermal == nvmlClocksThrottleReasonHwThermalSlowdown);
static_assert(clock_event::hw_power_brake == nvmlClocksThrottleReasonHwPowerBrakeSlowdown);

std::optional<ComputeMode> compute_mode_of(nvmlComputeMode_t mode) {
  switch (mode) {
    case NVML_COMPUTEMODE_DEFAULT: return ComputeMode::shared;
    case NVML_COMPUTEMODE_EXCLUSIVE_THREAD:  // removed from drivers; the same one context at a time
    case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS: return ComputeMode::exclusive_process;
    case NVML_COMPUTEMODE_PROHIBITED: return ComputeMode::prohibited;
    default: return std::nullopt;
  }
}

// The GPU's modes and the reasons its clocks are held, each left unknown where
// its call is missing, fails or is not supported (MIG on a GPU without it).
void read_state(Nvml& nvml, nvmlDevice_t handle, GpuFacts& gpu) {
  if (nvmlEnableState_t on{}; nvml.persistence_mode && nvml.persistence_mode(handle, &on) == NVML_SUCCESS)
    gpu.persistence_mode = on == NVML_FEATURE_ENABLED;
  if (unsigned current = 0, pending = 0; nvml.mig_mode && nvml.mig_mode(handle, &current, &pending) == NVML_SUCCESS)
    gpu.mig_mode = current == NVML_DEVICE_MIG_ENABLE;
  if (nvmlComputeMode_t mode{}; nvml.compute_mode && nvml.compute_mode(handle, &mode) == NVML_SUCCESS)
    gpu.compute_mode = compute_mode_of(mode);
  if (unsigned long long reasons = 0;
      nvml.clock_event_reasons && nvml.clock_event_reasons(handle, &reasons) == NVML_SUCCESS)
    gpu.clock_events = reasons;
  // The CPUs nearest the GPU, as a bitmask of 64-bit words: 16 words hold 1024 CPUs.
  constexpr unsigned words = 16;
  unsigned long mask[words] = {};
  if (nvml.cpu_affinity && nvml.cpu_affinity(handle, words, mask) == NVML_SUCCESS)
    for (unsigned w = 0; w < words; ++w)
      for (unsigned bit = 0; bit < 64; ++bit)
        if (mask[w] >> bit & 1ul) gpu.near_cpus.push_back(static_cast<int>(w * 64 + bit));
}

// NVML's unit is KB/s, taken as 1000 bytes as nvidia-smi dmon's MB/s are. The
// counters count the link's packets, headers included: an H100 copying host to
// device at 51 GB/s read 59 GB/s in and 5 GB/s out (the read requests).
std::optional<PcieTraffic> read_pcie_traffic(Nvml& nvml, nvmlDevice_t handle) {
  unsigned rx_KBps = 0, tx_KBps = 0;
  if (!nvml.pcie_throughput || nvml.pcie_throughput(handle, NVML_PCIE_UTIL_RX_BYTES, &rx_KBps) != NVML_SUCCESS ||
      nvml.pcie_throughput(handle, NVML_PCIE_UTIL_TX_BYTES, &tx_KBps) != NVML_SUCCESS)
    return std::nullopt;
  return PcieTraffic{.rx_Bps = rx_KBps * 1e3, .tx_Bps = tx_KBps * 1e3};
}

void add_nvml_facts(Nvml& nvml, Machine& machine) {
  if (nvml.driver_version) {
    char version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    if (nvml.driver_version(version, sizeof version) == NVML_SUCCESS)
      machine.driver_version = std::string(version) + " (" + machine.driver_version + ")";
  }
  // Per GPU of `machine`, in its order: NVML's handle (none when NVML does not know the GPU) and its links.
  struct Seen {
    std::optional<nvmlDevice_t> handle;
    NvLinks links;
  };
  std::vector<Seen> seen(machine.gpus.size());
  for (GpuFacts& gpu : machine.gpus) {
    nvmlDevice_t handle{};
    if (nvml.handle_by_bus_id(gpu.pci_bus_id.c_str(), &handle) != NVML_SUCCESS) continue;
    seen[gpu.index] = {handle, read_nvlinks(nvml, handle)};
    gpu.nvlinks = static_cast<int>(seen[gpu.index].links.to_gpus.size()) + seen[gpu.index].links.to_switches;
    read_other_processes(nvml, handle, gpu);
    read_state(nvml, handle, gpu);
    unsigned gen = 0, width = 0, max_gen = 0, max_width = 0;
    if (nvml.current_generation && nvml.current_width && nvml.max_generation && nvml.max_width &&
        nvml.current_generation(handle, &gen) == NVML_SUCCESS && nvml.current_width(handle, &width) == NVML_SUCCESS &&
        nvml.max_generation(handle, &max_gen) == NVML_SUCCESS && nvml.max_width(handle, &max_width) == NVML_SUCCESS) {
      gpu.pcie = {.generation = static_cast<int>(gen),
                  .width = static_cast<int>(width),
                  .max_generation = static_cast<int>(max_gen),
                  .max_width = static_cast<int>(max_width),
                  .source = "nvml"};
    }
  }
  // Last, after every fact above: each counter takes its 20 ms window, and
  // doctor reads the others while its copy still runs.
  for (GpuFacts& gpu : machine.gpus)
    if (seen[gpu.index].handle) gpu.pcie_traffic = read_pcie_traffic(nvml, *seen[gpu.index].handle);
  for (PeerFacts& peer : machine.peers) {
    const Seen& from = seen[peer.from];
    const Seen& to = seen[peer.to];
    if (!from.handle || !to.handle) continue;
    if (from.links.looked && to.links.looked) peer.nvlink_source = "nvml";
    for (const nvmlPciInfo_t& remote : from.links.to_gpus)
      if (same_function(remote, machine.gpus[peer.to].pci_bus_id)) ++peer.nvlinks;
    // Through switches the pair moves at the narrower side's switch links.
    if (from.links.to_switches > 0 && to.links.to_switches > 0 && nvlink_p2p(nvml, *from.handle, *to.handle))
      peer.nvlinks += std::min(from.links.to_switches, to.links.to_switches);
    if (peer.nvlinks > 0) peer.nvlink_version = from.links.version;
  }
}

#endif

}  // namespace

void add_link_facts(Machine& machine) {
#if FERRY_WITH_NVML
  Nvml nvml;
  if (nvml.open()) add_nvml_facts(nvml, machine);
#endif
  for (GpuFacts& gpu : machine.gpus)
    if (gpu.pcie.source.empty()) add_sysfs_pcie(gpu);
}

}  // namespace ferry::cuda
