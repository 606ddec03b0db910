#include "doctor/judge/links.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/units.hpp"
#include "model/link_model.hpp"

namespace ferry::doctor {
namespace {

void pcie_link(const Inputs& in, int device, std::vector<Finding>& out) {
  const GpuFacts* g = gpu_facts(in.machine, device);
  if (!g || g->pcie.generation == 0 || g->pcie.max_generation == 0) {
    out.push_back(
        not_judged("pcie link", gpu_subject(device), "neither NVML nor sysfs gave the link's generation and width"));
    return;
  }
  const PcieLink& p = g->pcie;
  Finding f{.check = "pcie link", .subject = gpu_subject(device)};
  f.measured = fmt::format("Gen{} x{}", p.generation, p.width);
  f.expected = fmt::format("Gen{} x{}", p.max_generation, p.max_width);
  f.basis = fmt::format("the most the GPU and slot can run ({}; read while a copy ran: an idle link saves power at a "
                        "lower generation)",
                        p.source);
  f.value = model::pcie_Bps(p.generation, p.width);
  f.model = model::pcie_Bps(p.max_generation, p.max_width);
  f.unit = Unit::bytes_per_second;
  f.worse = Worse::lower;
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
    if (const GpuFacts* g = gpu_facts(in.machine, d); g && g->nvlinks > 0) by_model[g->name].push_back(g->nvlinks);
  for (int d : in.devices) {
    const GpuFacts* g = gpu_facts(in.machine, d);
    if (!g) continue;
    const auto like = by_model.find(g->name);
    if (like == by_model.end()) continue;  // no NVLinks reported for this model: a PCIe-only GPU
    const int most = *std::max_element(like->second.begin(), like->second.end());
    Finding f{.check = "nvlinks", .subject = gpu_subject(d)};  // a count: no figure in B/s
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

}  // namespace

void judge_links(const Inputs& in, std::vector<Finding>& out) {
  for (int d : in.devices) pcie_link(in, d, out);
  nvlinks(in, out);
  peer_access(in, out);
}

}  // namespace ferry::doctor
