// The host -> host step of the staged transports on its own, so that the
// store-and-forward peak 1 / (1/P_pcie + 1/P_host + 1/P_pcie) has a measured
// P_host: in one process the same copy_between_hosts() host-staged runs, with
// as many messages at once; across ranks MPI between the ranks' pinned
// buffers in a ring (what mpi-staged does).
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "core/clock.hpp"
#include "transport/mpi_common.hpp"
#include "transport/transports.hpp"

namespace ferry::transport {

namespace {

// Word i of what participant `who` sends: differs at every word and from every other sender.
std::uint64_t sent_word(std::uint64_t i, int who) {
  return (i + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(who) + 1) * 0xBF58476D1CE4E5B9ull;
}

}  // namespace

HostStepTime time_host_step(Backend& backend, World& world, std::uint64_t bytes, int messages, int repetitions) {
  const std::uint64_t words = bytes / 8;
  // Across ranks each rank sends one message; in one process every message of the exchange is here.
  const int here = world.distributed() ? 1 : messages;
  const std::uint64_t all_words = words * static_cast<std::uint64_t>(here);
  Buffer from = backend.allocate_host(MemoryKind::pinned, all_words * 8);
  Buffer to = backend.allocate_host(MemoryKind::pinned, all_words * 8);
  // Not zeros: a copy of untouched pages would measure the page tables, and a copy that did nothing would pass.
  auto* sent = from.as<std::uint64_t>();
  auto* received = to.as<std::uint64_t>();
  const auto sender = [&](int m) { return world.distributed() ? world.rank() : m; };
  for (int m = 0; m < here; ++m)
    for (std::uint64_t i = 0; i < words; ++i) sent[m * words + i] = sent_word(i, sender(m));
  std::memset(received, 0xA5, all_words * 8);
  std::vector<HostMessage> copies;
  for (int m = 0; m < here; ++m) copies.push_back({to.data() + m * words * 8, from.data() + m * words * 8});
  HostStepTime time;
  time.how = world.distributed() ? "MPI_Sendrecv between the ranks' pinned buffers, in a ring"
                                 : fmt::format("memcpy between pinned buffers, {} message{} at once", messages,
                                               messages == 1 ? "" : "s");
  const ExchangePlan ring = make_plan(Pattern::ring, world.size(), words * 8, 1, slot_pitch(words * 8));
  for (int r = 0; r <= repetitions; ++r) {
    world.barrier();
    const auto start = HostClock::now();
    if (world.distributed()) mpi_exchange(ring, world.rank(), 0, {{from.data(), to.data()}});
    else copy_between_hosts(copies, words * 8);
    const double seconds = world.max(seconds_between(start, HostClock::now()));
    if (r > 0) time.seconds.push_back(seconds);  // the first warms the pages and the connections
  }
  // Every word of every message from its sender (across ranks: the rank on the left), on every rank.
  bool intact = true;
  for (int m = 0; m < here && intact; ++m) {
    const int left = world.distributed() ? ring.route(world.rank(), 0).receive_from : sender(m);
    for (std::uint64_t i = 0; i < words && intact; ++i) intact = received[m * words + i] == sent_word(i, left);
  }
  if (!world.all(intact)) time.seconds.clear();
  return time;
}

}  // namespace ferry::transport
