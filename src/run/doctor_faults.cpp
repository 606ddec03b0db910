#include "run/doctor_faults.hpp"

#include <fmt/format.h>

#include <string>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ferry::doctor {
namespace {

int parse_index(std::string_view text, std::string_view condition) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(std::string(text), &used);
    if (used == text.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("{}: '{}' in '{}' is not a device number", fault_variable, text, condition));
}

}  // namespace

void apply_fault(std::string_view hook, Inputs& in) {
  for (std::string_view condition : split(hook, ',')) {
    const std::size_t equals = condition.find('=');
    const std::string_view name = condition.substr(0, equals);
    const std::string_view value = equals == std::string_view::npos ? "" : condition.substr(equals + 1);
    if (name == "pcie") {  // pcie=GENxWIDTH: every GPU's link trained lower than Gen5 x16
      const std::size_t x = value.find('x');
      const int generation = x == std::string_view::npos ? 0 : parse_index(value.substr(0, x), condition);
      const int width = x == std::string_view::npos ? 0 : parse_index(value.substr(x + 1), condition);
      if (generation == 0 || width == 0)
        throw UsageError(fmt::format("{}: '{}' wants pcie=GENxWIDTH, e.g. pcie=4x8", fault_variable, condition));
      for (GpuFacts& g : in.machine.gpus) g.pcie = {generation, width, 5, 16, "FERRY_FAULT_DOCTOR"};
    } else if (name == "nvlink-down") {  // nvlink-down=D: GPU D has 16 NVLinks up, the others 18
      const int device = parse_index(value, condition);
      for (GpuFacts& g : in.machine.gpus) g.nvlinks = g.index == device ? 16 : 18;
    } else if (name == "no-peer") {  // no-peer=A-B: the pair has no peer access either way
      const std::size_t dash = value.find('-');
      const int a = parse_index(value.substr(0, dash), condition);
      const int b = dash == std::string_view::npos ? -1 : parse_index(value.substr(dash + 1), condition);
      for (PeerFacts& p : in.machine.peers)
        if ((p.from == a && p.to == b) || (p.from == b && p.to == a)) p.direct_access = false;
    } else if (name == "other-process") {  // other-process=D: another process has work on GPU D
      const int device = parse_index(value, condition);
      for (GpuFacts& g : in.machine.gpus)
        if (g.index == device) {
          g.other_processes = 1;
          g.other_process_ids = {4242};
        }
    } else if (name == "far-numa") {  // far-numa=D: GPU D on node 1, the process on node 0
      const int device = parse_index(value, condition);
      in.placement.process_nodes = {0};
      in.placement.device_nodes = {{device, 1}};
    } else {
      throw UsageError(fmt::format("{}: unknown condition '{}': choose pcie=GENxWIDTH, nvlink-down=D, no-peer=A-B, "
                                   "other-process=D or far-numa=D",
                                   fault_variable, condition));
    }
  }
}

}  // namespace ferry::doctor
