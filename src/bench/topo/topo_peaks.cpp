// The theoretical peak of each topology from what the machine reports, as
// the thesis' table has it: a direct link's lanes times their rate, and the
// host path as its three steps in store-and-forward,
// 1 / (1/P_pcie + 1/P_host + 1/P_pcie). All per device and direction.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "bench/topo/topo_run.hpp"
#include "core/units.hpp"
#include "model/link_model.hpp"

namespace ferry::topo {
namespace {

using transport::Pattern;

const PeerFacts* facts_of(const Machine& machine, int from, int to) {
  for (const PeerFacts& p : machine.peers)
    if (p.from == from && p.to == to) return &p;
  return nullptr;
}

// The lowest of several peaks, with its basis; unknown when any is unknown.
Peak lowest(const std::vector<Peak>& peaks) {
  Peak low{std::numeric_limits<double>::max(), ""};
  for (const Peak& p : peaks) {
    if (p.Bps <= 0) return {};
    if (p.Bps < low.Bps) low = p;
  }
  return peaks.empty() ? Peak{} : low;
}

// The devices each one sends to in one exchange of the pattern.
std::vector<std::pair<int, int>> directions(Pattern pattern, const std::vector<int>& devices) {
  const int n = static_cast<int>(devices.size());
  std::vector<std::pair<int, int>> out;
  for (int p = 0; p < n; ++p)
    for (int k = 0; k < transport::fan_of(pattern, n); ++k) {
      const int to = transport::route_of(pattern, n, p, 0, k).send_to;
      if (to >= 0) out.emplace_back(devices[p], devices[to]);
    }
  return out;
}

}  // namespace

Peak direct_peak(const Machine& machine, Pattern pattern, const std::vector<int>& devices) {
  if (pattern != Pattern::fully_connected) {
    std::vector<Peak> hops;
    for (const auto& [from, to] : directions(pattern, devices)) hops.push_back(model::peer_link(machine, from, to));
    return lowest(hops);
  }
  // Every peer at once: the sum of the pairs' links, but no more than the device's own links
  // (through a switch every pair reports all of them).
  std::vector<Peak> per_device;
  for (int from : devices) {
    double sum = 0;
    int version = 0;
    for (int to : devices) {
      if (to == from) continue;
      const Peak pair = model::peer_link(machine, from, to);
      if (pair.Bps <= 0) return {};
      sum += pair.Bps;
      if (const PeerFacts* f = facts_of(machine, from, to)) version = std::max(version, f->nvlink_version);
    }
    const auto gpu =
        std::find_if(machine.gpus.begin(), machine.gpus.end(), [&](const GpuFacts& g) { return g.index == from; });
    const int own_links = gpu == machine.gpus.end() ? 0 : gpu->nvlinks;
    const double own = own_links * model::nvlink_Bps_per_link(version);
    if (own > 0 && own < sum)
      per_device.push_back(
          {own, fmt::format("{} x NVLink{} shared by {} peers", own_links, version, devices.size() - 1)});
    else per_device.push_back({sum, fmt::format("the links to {} peers", devices.size() - 1)});
  }
  return lowest(per_device);
}

Peak host_staged_peak(const Machine& machine, const std::vector<int>& devices, double host_Bps,
                      std::uint64_t host_bytes) {
  std::vector<Peak> per_device;
  for (int device : devices) {
    const model::RatedLink pcie = model::gpu_pcie(machine, device);
    if (pcie.Bps <= 0 || host_Bps <= 0) return {};
    per_device.push_back(
        {1 / (2 / pcie.Bps + 1 / host_Bps),
         fmt::format("{} twice + host {:.1f} GB/s at {}", pcie.basis, to_GBps(host_Bps), format_bytes(host_bytes))});
  }
  return lowest(per_device);
}

Peak link_peak(const std::vector<model::PeerProfile>& peers, Pattern pattern, const std::vector<int>& devices) {
  if (pattern == Pattern::fully_connected) return {};  // link times one pair at a time
  const auto measured = [&](int from, int to) -> const model::PeerProfile* {
    for (const model::PeerProfile& p : peers)
      if (p.from == from && p.to == to) return &p;
    return nullptr;
  };
  std::vector<Peak> hops;
  const bool both_ways = pattern == Pattern::ring;
  for (const auto& [from, to] : directions(pattern, devices)) {
    const model::PeerProfile* p = measured(from, to);
    if (!p && both_ways) p = measured(to, from);
    if (!p) return {};
    // Both ways at once: link's pair counts both directions' bytes.
    if (both_ways && p->bidirectional_Bps > 0)
      hops.push_back({p->bidirectional_Bps / 2, "link: copies both ways at once, per direction"});
    else hops.push_back({p->copy_Bps, "link: one-way peer copies"});
  }
  return lowest(hops);
}

}  // namespace ferry::topo
