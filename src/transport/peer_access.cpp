// What both p2p transports need: one process driving every device of the
// group, each device able to reach the memory of the devices it exchanges
// with; or a rank per device, every rank on one host (CUDA IPC maps memory
// between the processes of one host).
#include <fmt/format.h>

#include "transport/transports.hpp"

namespace ferry::transport {

std::string peer_reason(Kind kind, Backend& backend, const World& world, const Group& group) {
  if (world.distributed()) {
    if (!world.one_host())
      return fmt::format("{} reaches its peers' memory through CUDA IPC, which maps memory between the processes of "
                         "one host, and these ranks run on several: between hosts, use nccl or mpi-staged",
                         to_string(kind));
    return "";
  }
  if (group.local.size() < 2) return "needs 2 devices in one process (--devices 0,1)";
  const int n = static_cast<int>(group.local.size());
  // Each route k pairs every participant with the one k + 1 to its right; both
  // ways, since a ping-pong runs both ways between neighbours.
  for (int p = 0; p < n; ++p) {
    for (int k = 0; k < group.routes; ++k) {
      const int from = group.local[p].device, to = group.local[(p + k + 1) % n].device;
      if (from == to) continue;
      if (!backend.enable_peer_access(from, to) || !backend.enable_peer_access(to, from))
        return fmt::format("devices {} and {} cannot reach each other's memory (no peer access)", from, to);
    }
  }
  return "";
}

}  // namespace ferry::transport
