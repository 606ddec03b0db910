// What both p2p transports need: one process driving every device of the
// group, each device able to reach the memory of the devices it exchanges with.
#include <fmt/format.h>

#include "transport/transports.hpp"

namespace ferry::transport {

std::string peer_reason(Kind kind, Backend& backend, const World& world, const Group& group) {
  if (world.distributed())
    return fmt::format(
        "{} drives every device from one process, and under mpirun each rank has one: run it without mpirun "
        "(--devices 0,1,...)",
        to_string(kind));
  if (group.local.size() < 2) return "needs 2 devices in one process (--devices 0,1)";
  const int n = static_cast<int>(group.local.size());
  for (int p = 0; p < n; ++p) {
    const int right = (p + 1) % n;
    const int from = group.local[p].device, to = group.local[right].device;
    if (from == to) continue;
    // Both ways: the ring runs to the right, a ping-pong runs both ways between neighbours.
    if (!backend.enable_peer_access(from, to) || !backend.enable_peer_access(to, from))
      return fmt::format("devices {} and {} cannot reach each other's memory (no peer access)", from, to);
  }
  return "";
}

}  // namespace ferry::transport
