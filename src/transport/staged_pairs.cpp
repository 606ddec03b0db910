#include "transport/staged_pairs.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstring>
#include <sstream>

#include "core/clock.hpp"
#include "core/error.hpp"

#if FERRY_WITH_MPI
#include "core/mpi_check.hpp"
#endif

namespace ferry::transport {
namespace {

// Word i of what rank `sender` sends: differs at every word and from every other sender.
std::uint64_t pair_word(std::uint64_t i, int sender) {
  return (i + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(sender) + 1) * 0xD6E8FEB86659FD93ull;
}

}  // namespace

std::vector<PairTime> gather_pair_times(World& world, std::string lines) {
  lines += "host " + world.host() + "\n";
  const std::vector<std::string> texts = world.gather(lines);
  if (world.rank() != 0) return {};
  const int n = world.size();
  std::vector<PairTime> times(static_cast<std::size_t>(n));
  std::vector<std::string> hosts(static_cast<std::size_t>(n));
  for (std::size_t rank = 0; rank < texts.size(); ++rank) {
    std::istringstream text(texts[rank]);
    for (std::string line; std::getline(text, line);) {
      std::istringstream words_of(line);
      std::string first, second;
      words_of >> first;
      if (first == "host") {
        words_of >> hosts[rank];
        continue;
      }
      PairTime& t = times.at(static_cast<std::size_t>(std::stoi(first)));
      if (line.find(" intact ") != std::string::npos) {
        int intact = 0;
        words_of >> second >> intact;
        t.intact = intact == 1;
      } else {
        for (double s; words_of >> s;) t.seconds.push_back(s);
      }
    }
  }
  for (int k = 0; k < n; ++k) {
    PairTime& t = times[static_cast<std::size_t>(k)];
    t.from = k;
    t.to = (k + 1) % n;
    t.from_host = hosts[static_cast<std::size_t>(t.from)];
    t.to_host = hosts[static_cast<std::size_t>(t.to)];
  }
  return times;
}

std::vector<PairTime> time_staged_pairs(Backend& backend, World& world, int device, std::uint64_t bytes,
                                        int repetitions, int corrupt_at) {
  if (!world.distributed()) return {};
#if FERRY_WITH_MPI
  if (bytes > static_cast<std::uint64_t>(INT_MAX) || bytes % 8 != 0 || bytes == 0)
    throw UsageError(fmt::format("a pair's message of {} B must be whole words, at most {} B", bytes, INT_MAX));
  const int n = world.size(), me = world.rank();
  const std::uint64_t words = bytes / 8;
  std::unique_ptr<Stream> stream = backend.make_stream(device);
  Buffer send_device = backend.allocate_device(device, bytes);
  Buffer receive_device = backend.allocate_device(device, bytes);
  Buffer send_host = backend.allocate_host(MemoryKind::pinned, bytes);
  Buffer receive_host = backend.allocate_host(MemoryKind::pinned, bytes);
  Buffer check_host = backend.allocate_host(MemoryKind::pinned, bytes);
  auto* sent = send_host.as<std::uint64_t>();
  for (std::uint64_t i = 0; i < words; ++i) sent[i] = pair_word(i, me);
  stream->copy(send_device.data(), send_host.data(), bytes);
  stream->synchronize();

  // What this rank knows of each pair, for rank 0: "pair seconds..." as the
  // sender, "pair intact" as the receiver.
  std::ostringstream mine;
  mine.precision(17);
  const int pairs = n;  // with 2 ranks: 0 -> 1 and 1 -> 0
  const int count = static_cast<int>(bytes);
  for (int k = 0; k < pairs; ++k) {
    const int from = k, to = (k + 1) % n;
    if (me == to) {
      stream->fill(receive_device.data(), 0xA5, bytes);  // poisoned: a copy that did nothing is seen
      stream->synchronize();
    }
    std::vector<double> seconds;
    for (int r = 0; r <= repetitions; ++r) {
      world.barrier();
      char ack = 0;
      if (me == from) {
        const auto start = HostClock::now();
        stream->copy(send_host.data(), send_device.data(), bytes);
        stream->synchronize();
        FERRY_MPI(MPI_Send(send_host.data(), count, MPI_BYTE, to, k, MPI_COMM_WORLD));
        FERRY_MPI(MPI_Recv(&ack, 1, MPI_CHAR, to, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (r > 0)
          seconds.push_back(seconds_between(start, HostClock::now()));  // the first warms pages and connections
      } else if (me == to) {
        FERRY_MPI(MPI_Recv(receive_host.data(), count, MPI_BYTE, from, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        stream->copy(receive_device.data(), receive_host.data(), bytes);
        stream->synchronize();
        FERRY_MPI(MPI_Send(&ack, 1, MPI_CHAR, from, k, MPI_COMM_WORLD));
      }
    }
    if (me == from) {
      mine << k;
      for (double s : seconds) mine << ' ' << s;
      mine << '\n';
    }
    if (me == to) {
      stream->copy(check_host.data(), receive_device.data(), bytes);
      stream->synchronize();
      if (corrupt_at == me) check_host.data()[bytes / 2] ^= std::byte{0xff};
      const auto* got = check_host.as<std::uint64_t>();
      bool intact = true;
      for (std::uint64_t i = 0; i < words && intact; ++i) intact = got[i] == pair_word(i, from);
      mine << k << " intact " << (intact ? 1 : 0) << '\n';
    }
  }
  return gather_pair_times(world, mine.str());
#else
  (void)backend, (void)device, (void)bytes, (void)repetitions, (void)corrupt_at;
  throw RuntimeFailure("this ferry was built without MPI");
#endif
}

}  // namespace ferry::transport
