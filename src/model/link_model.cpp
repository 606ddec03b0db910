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

}  // namespace ferry::model
