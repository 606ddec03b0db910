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
};

NvLinks read_nvlinks(Nvml& nvml, nvmlDevice_t handle) {
  NvLinks links;
  if (!nvml.nvlink_state || !nvml.nvlink_remote) return links;
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
  for (PeerFacts& peer : machine.peers) {
    const Seen& from = seen[peer.from];
    const Seen& to = seen[peer.to];
    if (!from.handle || !to.handle) continue;
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
