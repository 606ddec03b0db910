// The host -> host step of the staged transports on its own, so that the
// store-and-forward peak 1 / (1/P_pcie + 1/P_host + 1/P_pcie) has a measured
// P_host: memcpy between pinned buffers in one process (what host-staged
// does), MPI between the ranks' pinned buffers in a ring (what mpi-staged does).
#include <algorithm>
#include <cstring>

#include "core/clock.hpp"
#include "transport/mpi_common.hpp"
#include "transport/transports.hpp"

namespace ferry::transport {

HostStepTime time_host_step(Backend& backend, World& world, std::uint64_t bytes, int repetitions) {
  Buffer from = backend.allocate_host(MemoryKind::pinned, bytes);
  Buffer to = backend.allocate_host(MemoryKind::pinned, bytes);
  // Not zeros: a copy of untouched pages would measure the page tables.
  std::memset(from.data(), 0x5A, bytes);
  std::memset(to.data(), 0xA5, bytes);
  HostStepTime time;
  time.how = world.distributed() ? "MPI_Sendrecv between the ranks' pinned buffers, in a ring"
                                 : "memcpy between pinned buffers, one thread";
  const ExchangePlan ring = make_plan(Pattern::ring, world.size(), bytes, 1, slot_pitch(bytes));
  for (int r = 0; r <= repetitions; ++r) {
    world.barrier();
    const auto start = HostClock::now();
    if (world.distributed())
      mpi_exchange(ring, world.rank(), 0, {{from.data(), to.data()}});
    else
      std::memcpy(to.data(), from.data(), bytes);
    const double seconds = world.max(seconds_between(start, HostClock::now()));
    if (r > 0) time.seconds.push_back(seconds);  // the first warms the pages and the connections
  }
  if (std::memcmp(to.data(), from.data(), std::min<std::uint64_t>(bytes, 4096)) != 0) time.seconds.clear();
  return time;
}

}  // namespace ferry::transport
