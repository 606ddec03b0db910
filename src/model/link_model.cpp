#include "model/link_model.hpp"

#include <fmt/format.h>

namespace ferry::model {

double pcie_Bps(int generation, int width) {
  // Transfers per second per lane, and the share of bits that are payload after encoding.
  struct Generation {
    double gigatransfers;
    double encoding;
  };
  static constexpr Generation generations[] = {
      {2.5, 8.0 / 10}, {5, 8.0 / 10}, {8, 128.0 / 130}, {16, 128.0 / 130}, {32, 128.0 / 130}, {64, 242.0 / 256},
  };
  if (generation < 1 || generation > 6 || width <= 0) return 0;
  const Generation& g = generations[generation - 1];
  return g.gigatransfers * 1e9 * g.encoding * width / 8;
}

std::string pcie_name(int generation, int width) { return fmt::format("PCIe Gen{} x{}", generation, width); }

double nvlink_Bps_per_link(int version) {
  switch (version) {
    case 1: return 20e9;
    case 2:
    case 3:
    case 4: return 25e9;
    case 5: return 50e9;
    default: return 0;
  }
}

RatedLink gpu_pcie(const Machine& machine, int device) {
  for (const GpuFacts& g : machine.gpus)
    if (g.index == device)
      return {pcie_Bps(g.pcie.max_generation, g.pcie.max_width), pcie_name(g.pcie.max_generation, g.pcie.max_width)};
  return {};
}

RatedLink peer_link(const Machine& machine, int from, int to) {
  for (const PeerFacts& p : machine.peers) {
    if (p.from != from || p.to != to) continue;
    if (p.nvlinks > 0 && nvlink_Bps_per_link(p.nvlink_version) > 0)
      return {p.nvlinks * nvlink_Bps_per_link(p.nvlink_version),
              fmt::format("{} x NVLink{}", p.nvlinks, p.nvlink_version)};
    break;
  }
  const RatedLink a = gpu_pcie(machine, from), b = gpu_pcie(machine, to);
  if (a.Bps <= 0 || b.Bps <= 0) return {};
  return b.Bps < a.Bps ? b : a;
}

}  // namespace ferry::model
