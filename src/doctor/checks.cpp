#include "doctor/checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>

#include "core/stats.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "doctor/gpu_state.hpp"
#include "doctor/latency.hpp"
#include "model/link_model.hpp"

namespace ferry::doctor {

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::ok: return "OK";
    case Verdict::warn: return "WARN";
    case Verdict::fail: return "FAIL";
    case Verdict::not_judged: return "-";
  }
  return "?";
}

const std::vector<std::pair<std::string, std::string>>& path_variables() {
  static const std::vector<std::pair<std::string, std::string>> all = {
      {"NCCL_P2P_DISABLE", "NCCL moves data between GPUs through host memory instead of NVLink or PCIe peer access"},
      {"NCCL_SHM_DISABLE", "NCCL cannot use shared host memory between processes"},
      {"NCCL_P2P_LEVEL", "NCCL uses peer access only up to this distance between GPUs"},
      {"NCCL_PROTO", "NCCL may use only these protocols (LL, LL128, Simple)"},
      {"NCCL_ALGO", "NCCL may use only these algorithms"},
      {"CUDA_DEVICE_MAX_CONNECTIONS",
       "the hardware queues per device: with few, copies and kernels of different streams wait for each other"},
      {"CUDA_VISIBLE_DEVICES", "which GPUs this process sees, and in what order"},
  };
  return all;
}

bool any_fail(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.verdict == Verdict::fail; });
}

std::string rate_text(double Bps) { return fmt::format("{:.1f} GB/s", to_GBps(Bps)); }

Finding judge_share(const ShareCheck& c) {
  Finding f{.check = c.check, .subject = c.subject, .value = c.measured_Bps, .model = c.model_Bps};
  f.measured = rate_text(c.measured_Bps);
  f.expected = c.model_name.empty()
                   ? fmt::format(">= {:.0f}% of {}", 100 * c.share, rate_text(c.model_Bps))
                   : fmt::format(">= {:.0f}% of {} ({})", 100 * c.share, c.model_name, rate_text(c.model_Bps));
  f.basis = c.basis;
  f.verdict = c.measured_Bps < c.fail_share * c.model_Bps ? Verdict::fail
              : c.measured_Bps < c.share * c.model_Bps    ? c.below
                                                          : Verdict::ok;
  return f;
}

namespace {

std::string gpu(int device) { return fmt::format("GPU {}", device); }

const GpuFacts* facts_of(const Machine& machine, int device) {
  for (const GpuFacts& g : machine.gpus)
    if (g.index == device) return &g;
  return nullptr;
}

Finding not_judged(std::string check, std::string subject, std::string why) {
  return {.check = std::move(check),
          .subject = std::move(subject),
          .verdict = Verdict::not_judged,
          .basis = std::move(why)};
}

void pcie_link(const Inputs& in, int device, std::vector<Finding>& out) {
  const GpuFacts* g = facts_of(in.machine, device);
  if (!g || g->pcie.generation == 0 || g->pcie.max_generation == 0) {
    out.push_back(not_judged("pcie link", gpu(device), "neither NVML nor sysfs gave the link's generation and width"));
    return;
  }
  const PcieLink& p = g->pcie;
  Finding f{.check = "pcie link", .subject = gpu(device)};
  f.measured = fmt::format("Gen{} x{}", p.generation, p.width);
  f.expected = fmt::format("Gen{} x{}", p.max_generation, p.max_width);
  f.basis = fmt::format("the most the GPU and slot can run ({}; read while a copy ran: an idle link saves power at a "
                        "lower generation)",
                        p.source);
  f.value = model::pcie_Bps(p.generation, p.width);
  f.model = model::pcie_Bps(p.max_generation, p.max_width);
  if (p.generation < p.max_generation || p.width < p.max_width) {
    f.verdict = Verdict::fail;
    f.cause = fmt::format("the link trained at {} ({}) instead of {} ({}) while data moved", f.measured,
                          rate_text(*f.value), f.expected, rate_text(*f.model));
    f.action = "reseat the GPU or its riser, check the slot's BIOS setting (link speed, bifurcation), and compare "
               "`nvidia-smi -q -d PCIE` while a copy runs";
  } else {
    f.verdict = Verdict::ok;
  }
  out.push_back(std::move(f));
}

// A link that is down stays down, and none comes up that the model lacks: the
// most any selected GPU of a model has is what that model has.
void nvlinks(const Inputs& in, std::vector<Finding>& out) {
  std::map<std::string, std::vector<int>> by_model;  // active NVLinks of the selected GPUs, per GPU model
  for (int d : in.devices)
    if (const GpuFacts* g = facts_of(in.machine, d); g && g->nvlinks > 0) by_model[g->name].push_back(g->nvlinks);
  for (int d : in.devices) {
    const GpuFacts* g = facts_of(in.machine, d);
    if (!g) continue;
    const auto like = by_model.find(g->name);
    if (like == by_model.end()) continue;  // no NVLinks reported for this model: a PCIe-only GPU
    const int most = *std::max_element(like->second.begin(), like->second.end());
    Finding f{.check = "nvlinks", .subject = gpu(d)};  // a count: no figure in B/s
    f.measured = fmt::format("{} active", g->nvlinks);
    f.expected = std::to_string(most);
    f.basis = fmt::format("the most among the {} selected {}", like->second.size(), g->name);
    if (like->second.size() < 2) {
      f.verdict = Verdict::not_judged;
      f.basis = "no other GPU of this model selected to compare with";
    } else if (g->nvlinks < most) {
      f.verdict = Verdict::fail;
      f.cause = fmt::format("{} of this GPU's NVLinks are down: its peer copies can reach {:.0f}% of the others'",
                            most - g->nvlinks, 100.0 * g->nvlinks / most);
      f.action = "`nvidia-smi nvlink --status -i " + std::to_string(d) +
                 "`; a link down stays down until the GPU or its NVSwitch is serviced";
    } else {
      f.verdict = Verdict::ok;
    }
    out.push_back(std::move(f));
  }
}

void peer_access(const Inputs& in, std::vector<Finding>& out) {
  for (const PeerFacts& p : in.machine.peers) {
    if (std::find(in.devices.begin(), in.devices.end(), p.from) == in.devices.end() ||
        std::find(in.devices.begin(), in.devices.end(), p.to) == in.devices.end())
      continue;
    Finding f{.check = "peer access", .subject = fmt::format("GPU {} -> {}", p.from, p.to)};
    f.measured = p.direct_access ? "direct" : "none";
    f.expected = "direct";
    f.basis = "cudaDeviceCanAccessPeer";
    f.verdict = p.direct_access ? Verdict::ok : Verdict::warn;
    if (!p.direct_access) {
      f.cause = "copies between these GPUs go through host memory, and kernels cannot reach each other's memory";
      f.action = "`nvidia-smi topo -m` shows the path; on PCIe, ACS or an IOMMU in translated mode blocks peer "
                 "access";
    }
    out.push_back(std::move(f));
  }
}

void numa_placement(const Inputs& in, int device, std::vector<Finding>& out) {
  int node = -1;
  for (const auto& [d, n] : in.placement.device_nodes)
    if (d == device) node = n;
  if (node < 0 || in.placement.process_nodes.empty()) {
    out.push_back(not_judged("numa placement", gpu(device), "sysfs gives no NUMA node for the GPU (one node)"));
    return;
  }
  const auto& nodes = in.placement.process_nodes;
  Finding f{.check = "numa placement", .subject = gpu(device)};
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
  const GpuFacts* g = facts_of(in.machine, device);
  if (!g || g->near_cpus.empty() || in.placement.process_cpus.empty()) {
    out.push_back(not_judged("cpu affinity", gpu(device), "NVML does not say which CPUs are nearest the GPU"));
    return;
  }
  std::vector<int> near_and_allowed;
  std::set_intersection(g->near_cpus.begin(), g->near_cpus.end(), in.placement.process_cpus.begin(),
                        in.placement.process_cpus.end(), std::back_inserter(near_and_allowed));
  Finding f{.check = "cpu affinity", .subject = gpu(device)};
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
    out.push_back(not_judged("pinned memory node", gpu(device),
                             node < 0 ? "sysfs gives no NUMA node for the GPU (one node)"
                                      : "the kernel did not say where the pinned buffer landed"));
    return;
  }
  const std::vector<int>& nodes = in.placement.process_nodes;
  if (nodes.size() != 1) {  // first touch puts a buffer where the thread ran: no fault of a memory policy
    out.push_back(not_judged("pinned memory node", gpu(device),
                             fmt::format("the process may run on nodes {}: its pinned buffers land where its thread "
                                         "runs (numactl --cpunodebind=N --membind=N binds it, and then this is judged)",
                                         join(nodes, ",", [](int n) { return std::to_string(n); }))));
    return;
  }
  if (nodes.front() != node) {  // its buffers are far because the process is: numa placement says so
    out.push_back(
        not_judged("pinned memory node", gpu(device),
                   fmt::format("the process runs on node {}, not the GPU's: see numa placement", nodes.front())));
    return;
  }
  Finding f{.check = "pinned memory node", .subject = gpu(device)};
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

// The cause of a low figure when another process was on the GPU; empty when none was.
std::string shared_with_others(const Inputs& in, int device) {
  const GpuFacts* g = facts_of(in.machine, device);
  if (!g || g->other_processes <= 0) return "";
  return fmt::format("another process had work on GPU {} while doctor measured (see other processes): it shares the "
                     "link",
                     device);
}

void environment(const Inputs& in, std::vector<Finding>& out) {
  if (in.environment.empty()) {
    out.push_back({.check = "environment",
                   .subject = "host",
                   .verdict = Verdict::ok,
                   .measured = "none set",
                   .expected = "none set",
                   .basis = join(path_variables(), ", ", [](const auto& v) { return v.first; })});
    return;
  }
  for (const auto& [name, value] : in.environment) {
    std::string what;
    for (const auto& [known, effect] : path_variables())
      if (known == name) what = effect;
    Finding f{.check = "environment", .subject = "host", .verdict = Verdict::warn};
    f.measured = name + "=" + value;
    f.expected = "unset";
    f.basis = "a variable that changes how data moves";
    f.cause = what;
    f.action = "unset " + name + " unless this run is meant to measure its effect";
    if (name == "CUDA_VISIBLE_DEVICES") {
      // Only a reordering or a subset is worth a word: the numbers ferry prints are then not nvidia-smi's.
      f.cause = "device numbers here are positions in this list, not nvidia-smi's";
      f.action = "name devices by position in CUDA_VISIBLE_DEVICES when reading ferry's output";
    }
    out.push_back(std::move(f));
  }
}

// The GPU's rates against its PCIe link and memory, when the timings are a GPU's.
void device_figures(const Inputs& in, const model::DeviceProfile& p, std::vector<Finding>& out) {
  const std::string who = gpu(p.device);
  const GpuFacts* g = facts_of(in.machine, p.device);
  const PcieLink link = g ? g->pcie : PcieLink{};
  const double best = model::pcie_Bps(link.max_generation, link.max_width);
  const double now = model::pcie_Bps(link.generation, link.width);
  const std::string basis = best > 0 ? model::pcie_name(link.max_generation, link.max_width) : "";
  for (const auto& [check, value] : {std::pair{"pinned h2d", p.h2d_Bps}, std::pair{"pinned d2h", p.d2h_Bps}}) {
    if (best <= 0 || value <= 0) {
      out.push_back(not_judged(check, who, "no PCIe generation and width to hold it against"));
      continue;
    }
    Finding f = judge_share({.check = check,
                             .subject = who,
                             .measured_Bps = value,
                             .model_Bps = best,
                             .share = pinned_vs_pcie.warn_below,
                             .fail_share = pinned_vs_pcie.fail_below,
                             .basis = basis});
    if (f.verdict != Verdict::ok) {
      if (const std::string shared = shared_with_others(in, p.device); !shared.empty()) f.cause = shared;
      else if (now > 0 && now < best)
        f.cause = fmt::format("{} allows {}; you measured {}: the link, not the GPU",
                              model::pcie_name(link.generation, link.width), rate_text(now), rate_text(value));
      else
        f.cause = fmt::format("{:.0f}% of the link's {} while the link ran at its full generation and width: "
                              "something else shares it, or the host side is slow (NUMA, IOMMU)",
                              100 * value / best, rate_text(best));
      f.action = "see the pcie link, numa placement and environment rows; run again with nothing else on the GPU";
    }
    out.push_back(std::move(f));
  }
  if (best > 0 && p.bidirectional_Bps > 0) {
    Finding f = judge_share({.check = "pinned both ways",
                             .subject = who,
                             .measured_Bps = p.bidirectional_Bps,
                             .model_Bps = 2 * best,
                             .share = both_ways_vs_pcie.warn_below,
                             .fail_share = both_ways_vs_pcie.fail_below,
                             .basis = basis + ", both directions"});
    if (f.verdict != Verdict::ok) {
      const auto queues = std::find_if(in.environment.begin(), in.environment.end(),
                                       [](const auto& v) { return v.first == "CUDA_DEVICE_MAX_CONNECTIONS"; });
      if (const std::string shared = shared_with_others(in, p.device); !shared.empty()) {
        f.cause = shared;
        f.action = "measure again when the GPU is yours alone";
      } else if (queues != in.environment.end()) {
        f.cause = fmt::format("CUDA_DEVICE_MAX_CONNECTIONS={} is set: with few hardware queues the copy each way can "
                              "wait for the other ({} is {:.0f}% of one direction's {})",
                              queues->second, rate_text(p.bidirectional_Bps), 100 * p.bidirectional_Bps / best,
                              rate_text(best));
        f.action = "unset CUDA_DEVICE_MAX_CONNECTIONS, or raise it to at least the streams that copy at once";
      } else {
        f.cause = "copies each way at once share less of the link than a healthy machine's: a host bridge or root "
                  "port that serialises the two directions";
        f.action = "compare with another machine of this model; `ferry run link --memory pinned` gives the sweep";
      }
    }
    out.push_back(std::move(f));
  }
  for (const auto& [check, pageable, pinned] : {std::tuple{"pageable h2d", p.pageable_h2d_Bps, p.h2d_Bps},
                                                std::tuple{"pageable d2h", p.pageable_d2h_Bps, p.d2h_Bps}}) {
    if (pageable <= 0 || pinned <= 0) continue;
    Finding f = judge_share({.check = check,
                             .subject = who,
                             .measured_Bps = pageable,
                             .model_Bps = pinned,
                             .share = pageable_vs_pinned,
                             .below = Verdict::warn,
                             .basis = "the driver stages pageable memory through pinned buffers: slower than pinned, "
                                      "by how much the host's memory copy decides",
                             .model_name = "pinned"});
    if (f.verdict == Verdict::warn) {
      f.cause = fmt::format("pageable copies reach {:.0f}% of pinned: the host's own memory copy is slow (a busy or "
                            "far NUMA node)",
                            100 * pageable / pinned);
      f.action = "pin buffers that move often (cudaHostAlloc), and see the numa placement row";
    }
    out.push_back(std::move(f));
  }
  if (g && g->memory_bandwidth_Bps > 0 && p.device_copy_Bps > 0) {
    const double hbm = model::device_copy_Bps(g->memory_bandwidth_Bps);
    Finding f = judge_share({.check = "device copy",
                             .subject = who,
                             .measured_Bps = p.device_copy_Bps,
                             .model_Bps = hbm,
                             .share = device_copy_vs_hbm.warn_below,
                             .fail_share = device_copy_vs_hbm.fail_below,
                             .basis = fmt::format("half of {:.0f} GB/s memory (a copy reads and writes each byte)",
                                                  to_GBps(g->memory_bandwidth_Bps))});
    if (f.verdict != Verdict::ok) {
      const std::string slowed = g->clock_events ? clock_slowdowns(*g->clock_events) : "";
      if (const std::string shared = shared_with_others(in, p.device); !shared.empty()) f.cause = shared;
      else if (!slowed.empty())
        f.cause = "the GPU slowed its clocks during the pass (" + slowed + "): see clock events";
      else
        f.cause = "the GPU's memory runs below its rating: clocks held down (power or thermal cap) or another "
                  "process on the GPU";
      f.action = "`nvidia-smi -q -d PERFORMANCE,CLOCK` during a run shows the clock event reasons";
    }
    out.push_back(std::move(f));
  }
}

// Each GPU's pinned rates against the median of the selected GPUs of its model.
void like_gpus(const Inputs& in, std::vector<Finding>& out) {
  std::map<std::string, std::vector<double>> by_model;
  for (const model::DeviceProfile& p : in.figures.devices) by_model[p.name].push_back(std::min(p.h2d_Bps, p.d2h_Bps));
  for (const model::DeviceProfile& p : in.figures.devices) {
    const std::vector<double>& like = by_model[p.name];
    if (like.size() < fewest_like) continue;
    const double usual = summarize(like).median;
    const double mine = std::min(p.h2d_Bps, p.d2h_Bps);
    Finding f =
        judge_share({.check = "pinned vs like GPUs",
                     .subject = gpu(p.device),
                     .measured_Bps = mine,
                     .model_Bps = usual,
                     .share = like_median_share,
                     .below = Verdict::fail,
                     .basis = fmt::format("the median of the {} selected {} (slower direction)", like.size(), p.name)});
    if (f.verdict == Verdict::fail) {
      f.cause =
          fmt::format("{:.0f}% of its like: this GPU's link or placement differs from theirs", 100 * mine / usual);
      f.action = "compare its pcie link and numa placement rows with the others'";
    }
    out.push_back(std::move(f));
  }
}

void pair_figures(const Inputs& in, std::vector<Finding>& out) {
  std::map<int, std::vector<double>> by_links;  // one-way peer copies by NVLinks between the pair
  auto links_of = [&](int from, int to) {
    for (const PeerFacts& f : in.machine.peers)
      if (f.from == from && f.to == to) return f.nvlinks;
    return 0;
  };
  // Without NVML, 0 NVLinks is "unknown": held against PCIe, an NVLink pair would pass at any speed.
  auto links_known = [&](int from, int to) {
    for (const PeerFacts& f : in.machine.peers)
      if (f.from == from && f.to == to) return !f.nvlink_source.empty();
    return false;
  };
  for (const model::PeerProfile& p : in.figures.peers)
    if (p.copy_Bps > 0) by_links[links_of(p.from, p.to)].push_back(p.copy_Bps);
  for (const model::PeerProfile& p : in.figures.peers) {
    if (p.copy_Bps <= 0) continue;
    const std::string who = fmt::format("GPU {} -> {}", p.from, p.to);
    const model::RatedLink link = model::peer_link(in.machine, p.from, p.to);
    if (!links_known(p.from, p.to)) {
      Finding f = not_judged("peer copy", who,
                             "the NVLinks between the pair are unknown (no NVML in this build or on this machine): "
                             "against PCIe an NVLink pair would pass at any speed");
      f.measured = rate_text(p.copy_Bps);
      out.push_back(std::move(f));
    } else if (link.Bps > 0) {
      Finding f = judge_share({.check = "peer copy",
                               .subject = who,
                               .measured_Bps = p.copy_Bps,
                               .model_Bps = link.Bps,
                               .share = peer_vs_link.warn_below,
                               .fail_share = peer_vs_link.fail_below,
                               .basis = link.basis});
      if (f.verdict != Verdict::ok) {
        f.cause = p.direct_access ? "the pair's copies run below its links: links down or shared with other traffic"
                                  : "no peer access: the copy is staged through host memory";
        f.action = "see the nvlinks and peer access rows";
      }
      out.push_back(std::move(f));
    }
    const std::vector<double>& like = by_links[links_of(p.from, p.to)];
    if (like.size() >= fewest_like) {
      const double usual = summarize(like).median;
      Finding f = judge_share(
          {.check = "peer vs like pairs",
           .subject = who,
           .measured_Bps = p.copy_Bps,
           .model_Bps = usual,
           .share = like_median_share,
           .below = Verdict::fail,
           .basis = links_known(p.from, p.to)
                        ? fmt::format("the median of the {} pairs with {} NVLinks", like.size(), links_of(p.from, p.to))
                        : fmt::format("the median of the {} pairs whose NVLinks are unknown", like.size())});
      if (f.verdict == Verdict::fail) {
        f.cause = fmt::format("{:.0f}% of pairs linked alike", 100 * p.copy_Bps / usual);
        f.action = "`nvidia-smi nvlink --status` on both GPUs; run `ferry run link --devices` on the pair alone";
      }
      out.push_back(std::move(f));
    }
    for (const model::PeerProfile& back : in.figures.peers) {
      if (back.from != p.to || back.to != p.from || back.copy_Bps <= 0 || p.from > p.to) continue;
      const double low = std::min(p.copy_Bps, back.copy_Bps), high = std::max(p.copy_Bps, back.copy_Bps);
      Finding f{.check = "peer asymmetry",
                .subject = fmt::format("GPU {} <-> {}", p.from, p.to),
                .value = low,
                .model = high};
      f.measured = fmt::format("{} and {}", rate_text(p.copy_Bps), rate_text(back.copy_Bps));
      f.expected = fmt::format("within {:.0f}% of each other", 100 * (1 - asymmetry_share));
      f.basis = "the two directions of one pair";
      f.verdict = low < asymmetry_share * high ? Verdict::warn : Verdict::ok;
      if (f.verdict == Verdict::warn) {
        f.cause = fmt::format("one direction reaches {:.0f}% of the other", 100 * low / high);
        f.action = "a link degraded in one direction, or traffic from another process one way";
      }
      out.push_back(std::move(f));
    }
  }
}

}  // namespace

std::vector<Finding> diagnose(const Inputs& in) {
  std::vector<Finding> out;
  Finding verified{.check = "verification", .subject = "host"};
  verified.measured = fmt::format("{} checked rows {}", in.checked_rows, in.verification_passed ? "intact" : "FAILED");
  verified.expected = "every byte as sent";
  verified.basis = "link's checks of every copy, echo and chain";
  verified.verdict = in.verification_passed ? Verdict::ok : Verdict::fail;
  if (!in.verification_passed) {
    verified.cause = "data arrived wrong: a fault in the GPU, its memory or the link";
    verified.action = "`ferry run link` names the rows; run it again, then `nvidia-smi -q -d ECC,ROW_REMAPPER`";
  }
  out.push_back(std::move(verified));
  for (int d : in.devices) pcie_link(in, d, out);
  nvlinks(in, out);
  peer_access(in, out);
  for (int d : in.devices) numa_placement(in, d, out);
  for (int d : in.devices) cpu_affinity(in, d, out);
  for (int d : in.devices) pinned_memory_node(in, d, out);
  judge_gpu_state(in, out);
  environment(in, out);
  if (!in.figures.gpu_timings) {
    out.push_back(
        not_judged("figures", "host",
                   "the emulator's timings are CPU timings: doctor judges its facts and checks, not its speed"));
    return out;
  }
  for (const model::DeviceProfile& p : in.figures.devices) device_figures(in, p, out);
  like_gpus(in, out);
  pair_figures(in, out);
  for (Finding& f : judge_latencies(in)) out.push_back(std::move(f));
  return out;
}

}  // namespace ferry::doctor
