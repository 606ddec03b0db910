#include "doctor/judge/placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/text.hpp"

namespace ferry::doctor {
namespace {

void numa_placement(const Inputs& in, int device, std::vector<Finding>& out) {
  int node = -1;
  for (const auto& [d, n] : in.placement.device_nodes)
    if (d == device) node = n;
  if (node < 0 || in.placement.process_nodes.empty()) {
    out.push_back(not_judged("numa placement", gpu_subject(device), "sysfs gives no NUMA node for the GPU (one node)"));
    return;
  }
  const auto& nodes = in.placement.process_nodes;
  Finding f{.check = "numa placement", .subject = gpu_subject(device)};
  f.measured = "process on node " + join(nodes, ",", [](int n) { return std::to_string(n); });
  f.expected = fmt::format("node {}", node);
  f.basis = "sysfs numa_node of the GPU's PCI device; the nodes of the CPUs sched_getaffinity allows";
  if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
    f.verdict = Verdict::warn;
    f.cause = fmt::format("GPU {} is attached to NUMA node {}, and this process may run only on node {}: its pinned "
                          "buffers and every copy cross the link between the sockets",
                          device, node, join(nodes, ",", [](int n) { return std::to_string(n); }));
    f.action = fmt::format("numactl --cpunodebind={0} --membind={0} ferry ...", node);
  } else {
    f.verdict = Verdict::ok;
  }
  out.push_back(std::move(f));
}

// "0-15,32-47": CPU numbers as taskset and sysfs write them.
std::string cpu_ranges(const std::vector<int>& cpus) {
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return text;
}

// The CPUs this process may run on against those NVML counts nearest the GPU:
// where sysfs gives a GPU no NUMA node (a VM, one socket), NVML may still say.
void cpu_affinity(const Inputs& in, int device, std::vector<Finding>& out) {
  const GpuFacts* g = gpu_facts(in.machine, device);
  if (!g || g->near_cpus.empty() || in.placement.process_cpus.empty()) {
    out.push_back(not_judged("cpu affinity", gpu_subject(device), "NVML does not say which CPUs are nearest the GPU"));
    return;
  }
  std::vector<int> near_and_allowed;
  std::set_intersection(g->near_cpus.begin(), g->near_cpus.end(), in.placement.process_cpus.begin(),
                        in.placement.process_cpus.end(), std::back_inserter(near_and_allowed));
  Finding f{.check = "cpu affinity", .subject = gpu_subject(device)};
  f.measured =
      fmt::format("{} of this process's {} CPUs near it", near_and_allowed.size(), in.placement.process_cpus.size());
  f.expected = "one or more";
  f.basis = fmt::format("NVML's CPUs nearest GPU {} ({}) against those sched_getaffinity allows ({})", device,
                        cpu_ranges(g->near_cpus), cpu_ranges(in.placement.process_cpus));
  f.verdict = near_and_allowed.empty() ? Verdict::warn : Verdict::ok;
  if (f.verdict == Verdict::warn) {
    f.cause = fmt::format("this process may run only on CPUs far from GPU {}: every launch, sync and pinned copy "
                          "it drives crosses the link between the sockets",
                          device);
    f.action = fmt::format("taskset -c {} ferry ... (or the launcher's binding, e.g. mpirun --bind-to)",
                           cpu_ranges(g->near_cpus));
  }
  out.push_back(std::move(f));
}

// Where the pinned memory doctor allocated landed, against the GPU's node: the
// process may run near the GPU while its memory policy puts buffers far.
void pinned_memory_node(const Inputs& in, int device, std::vector<Finding>& out) {
  int node = -1;
  for (const auto& [d, n] : in.placement.device_nodes)
    if (d == device) node = n;
  if (node < 0 || in.placement.pinned_node < 0) {
    out.push_back(not_judged("pinned memory node", gpu_subject(device),
                             node < 0 ? "sysfs gives no NUMA node for the GPU (one node)"
                                      : "the kernel did not say where the pinned buffer landed"));
    return;
  }
  const std::vector<int>& nodes = in.placement.process_nodes;
  if (nodes.size() != 1) {  // first touch puts a buffer where the thread ran: no fault of a memory policy
    out.push_back(not_judged("pinned memory node", gpu_subject(device),
                             fmt::format("the process may run on nodes {}: its pinned buffers land where its thread "
                                         "runs (numactl --cpunodebind=N --membind=N binds it, and then this is judged)",
                                         join(nodes, ",", [](int n) { return std::to_string(n); }))));
    return;
  }
  if (nodes.front() != node) {  // its buffers are far because the process is: numa placement says so
    out.push_back(
        not_judged("pinned memory node", gpu_subject(device),
                   fmt::format("the process runs on node {}, not the GPU's: see numa placement", nodes.front())));
    return;
  }
  Finding f{.check = "pinned memory node", .subject = gpu_subject(device)};
  f.measured = fmt::format("node {}", in.placement.pinned_node);
  f.expected = fmt::format("node {}", node);
  f.basis = "the NUMA node of a pinned buffer doctor allocated (get_mempolicy), against the GPU's in sysfs";
  f.verdict = in.placement.pinned_node == node ? Verdict::ok : Verdict::warn;
  if (f.verdict == Verdict::warn) {
    f.cause = fmt::format("pinned buffers land on NUMA node {} and GPU {} is on node {}: every pinned copy crosses "
                          "the link between the sockets",
                          in.placement.pinned_node, device, node);
    f.action = fmt::format("numactl --membind={} ferry ..., or check the memory policy the launcher sets", node);
  }
  out.push_back(std::move(f));
}

}  // namespace

void judge_placement(const Inputs& in, std::vector<Finding>& out) {
  for (int d : in.devices) numa_placement(in, d, out);
  for (int d : in.devices) cpu_affinity(in, d, out);
  for (int d : in.devices) pinned_memory_node(in, d, out);
}

}  // namespace ferry::doctor
