#include "doctor/measure/read_facts.hpp"

#include <linux/mempolicy.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "core/text.hpp"

namespace ferry::doctor {
namespace {

// "4-7,12" -> {4, 5, 6, 7, 12}; empty on anything else.
std::set<int> parse_cpu_list(const std::string& text) {
  std::set<int> cpus;
  for (std::string_view part : split(text, ',')) {
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.remove_suffix(1);
    if (part.empty()) continue;
    const std::size_t dash = part.find('-');
    try {
      const int lo = std::stoi(std::string(part.substr(0, dash)));
      const int hi = dash == std::string_view::npos ? lo : std::stoi(std::string(part.substr(dash + 1)));
      for (int c = lo; c <= hi; ++c) cpus.insert(c);
    } catch (const std::exception&) {
      return {};
    }
  }
  return cpus;
}

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The CPUs this process may run on, in order; empty where the kernel does not say.
std::vector<int> process_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return {};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  return cpus;
}

// The NUMA nodes holding one of `cpus`; empty where sysfs has no nodes.
std::vector<int> nodes_of(const std::vector<int>& cpus) {
  std::vector<int> nodes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/node", error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node", 0) != 0 || name.size() == 4 || !std::isdigit(static_cast<unsigned char>(name[4]))) continue;
    for (int cpu : parse_cpu_list(read_line(entry.path() / "cpulist")))
      if (std::binary_search(cpus.begin(), cpus.end(), cpu)) {
        nodes.push_back(std::stoi(name.substr(4)));
        break;
      }
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// The NUMA node a pinned buffer of this process lands on, as the kernel says
// (get_mempolicy on its address); -1 where it does not.
int pinned_node(Backend& backend) {
  constexpr std::size_t bytes = 2 << 20;
  Buffer buffer = backend.allocate_host(MemoryKind::pinned, bytes);
  std::fill_n(buffer.data(), bytes, std::byte{0x5a});  // resident before the kernel is asked
  int node = -1;
  if (syscall(SYS_get_mempolicy, &node, nullptr, 0, buffer.data(), MPOL_F_NODE | MPOL_F_ADDR) != 0) return -1;
  return node;
}

// sysfs names a PCI device 0000:18:00.0; NVML and CUDA may give the domain in 8 digits and upper case.
int device_node(const std::string& pci_bus_id) {
  const std::size_t colon = pci_bus_id.find(':');
  if (colon == std::string::npos || colon < 4) return -1;
  std::string id = pci_bus_id.substr(colon - 4);
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string text = read_line("/sys/bus/pci/devices/" + id + "/numa_node");
  try {
    return text.empty() ? -1 : std::stoi(text);
  } catch (const std::exception&) {
    return -1;
  }
}

// A CUDA_VISIBLE_DEVICES that is not an ascending list of indices: device numbers here differ from nvidia-smi's.
bool reorders(const std::string& visible) {
  int last = -1;
  for (std::string_view item : split(visible, ',')) {
    if (item.empty() || !std::all_of(item.begin(), item.end(), [](char c) { return std::isdigit(c); }))
      return false;  // UUIDs or MIG names: nothing to say about order
    const int index = std::stoi(std::string(item));
    if (index <= last) return true;
    last = index;
  }
  return false;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> read_environment() {
  std::vector<std::pair<std::string, std::string>> set;
  for (const auto& [name, effect] : path_variables()) {
    const char* value = std::getenv(name.c_str());
    if (!value) continue;
    if (name == "CUDA_VISIBLE_DEVICES" && !reorders(value)) continue;
    set.emplace_back(name, value);
  }
  return set;
}

Placement read_placement(Backend& backend, const Machine& machine, const std::vector<int>& devices) {
  Placement placement;
  placement.process_cpus = process_cpus();
  placement.process_nodes = nodes_of(placement.process_cpus);
  placement.pinned_node = pinned_node(backend);
  for (const GpuFacts& g : machine.gpus)
    if (std::find(devices.begin(), devices.end(), g.index) != devices.end() && !g.pci_bus_id.empty())
      placement.device_nodes.emplace_back(g.index, device_node(g.pci_bus_id));
  return placement;
}

void read_links_under_load(Backend& backend, const std::vector<int>& devices, Machine& machine) {
  if (!backend.capabilities().gpu_timings) return;  // the emulator has no link
  constexpr std::size_t bytes = 256ull << 20;
  constexpr int copies = 24;  // about 0.1 s at Gen5 x16: time enough to read the link mid-way
  // Every selected GPU copies at once, so one reading of the machine finds each link busy.
  struct Busy {
    Buffer host, gpu;
    std::unique_ptr<Stream> stream;
  };
  std::vector<Busy> busy;
  for (int device : devices) {
    Busy b{backend.allocate_host(MemoryKind::pinned, bytes), backend.allocate_device(device, bytes),
           backend.make_stream(device)};
    std::fill_n(b.host.data(), bytes, std::byte{0x5a});
    for (int i = 0; i < copies; ++i) b.stream->copy(b.gpu.data(), b.host.data(), bytes);
    busy.push_back(std::move(b));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const Machine loaded = backend.describe_machine();
  for (Busy& b : busy) b.stream->synchronize();
  for (GpuFacts& g : machine.gpus)
    if (std::find(devices.begin(), devices.end(), g.index) != devices.end())
      for (const GpuFacts& now : loaded.gpus)
        if (now.index == g.index) g = now;  // every fact as read under load: the link, processes, clocks
}

std::vector<std::pair<int, PcieTraffic>> read_idle_pcie_traffic(Backend& backend, const std::vector<int>& devices) {
  if (!backend.capabilities().gpu_timings) return {};  // the emulator has no link
  std::vector<std::pair<int, PcieTraffic>> idle;
  for (const GpuFacts& g : backend.describe_machine().gpus)
    if (g.pcie_traffic && std::find(devices.begin(), devices.end(), g.index) != devices.end())
      idle.emplace_back(g.index, *g.pcie_traffic);
  return idle;
}

}  // namespace ferry::doctor
