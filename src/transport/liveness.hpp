#pragma once
// Which ranks still answer, asked beside MPI. A rank stuck in an MPI call
// cannot tell whom it waits for: in a ring every rank ends up waiting for its
// neighbour, and a host whose link went down sends no error, only silence. So
// each rank answers pings on a UDP port of its own from the start, and a rank
// whose run stalls pings every other rank and names those that stay silent.
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace ferry {

class Liveness {
 public:
  // Opens this rank's port (UDP, every address, a port the kernel picks) and
  // answers pings on it from a thread of its own until destroyed. Throws
  // RuntimeFailure when the port cannot be opened.
  explicit Liveness(int rank);
  ~Liveness();
  Liveness(const Liveness&) = delete;
  Liveness& operator=(const Liveness&) = delete;

  // Where to reach this rank, to share with the others: its port and its
  // IPv4 addresses (each interface that is up; loopback where there is no other).
  std::vector<std::uint8_t> endpoint() const;
  // Every rank's endpoint, in rank order (this rank's too).
  void set_peers(std::vector<std::vector<std::uint8_t>> endpoints) { peers_ = std::move(endpoints); }

  // The other ranks that answer no ping within `wait`: pinged every 100 ms at
  // every address they gave. Ascending.
  std::vector<int> silent_ranks(std::chrono::milliseconds wait) const;

 private:
  void answer_pings();

  int rank_;
  std::uint16_t port_ = 0;  // before socket_, which opening it sets
  int socket_ = -1;
  std::vector<std::vector<std::uint8_t>> peers_;
  std::jthread responder_;
};

// "rank 2 (node3) does not answer", "ranks 2 and 3 (node3, node4) do not
// answer", or, when no other rank answers, that this rank's host is the one
// cut off; "" when every rank answers. `hosts` holds every rank's host.
std::string silent_in_words(const std::vector<int>& silent, const std::vector<std::string>& hosts, int me);

}  // namespace ferry
