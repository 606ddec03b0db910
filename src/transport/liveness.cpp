#include "transport/liveness.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ferry {
namespace {

// A datagram: the magic, then the sender's rank. A ping is answered with a pong from the answering rank.
constexpr std::uint32_t ping_magic = 0x46525950;  // "FRYP"
constexpr std::uint32_t pong_magic = 0x46525941;  // "FRYA"

struct Datagram {
  std::uint32_t magic;
  std::int32_t rank;
};

sockaddr_in address_of(std::uint32_t ipv4_network_order, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = ipv4_network_order;
  a.sin_port = htons(port);
  return a;
}

int open_socket(std::uint16_t& port) {
  const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) throw RuntimeFailure(fmt::format("liveness: no UDP socket: {}", std::strerror(errno)));
  sockaddr_in any = address_of(htonl(INADDR_ANY), 0);
  socklen_t length = sizeof any;
  if (bind(s, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0 ||
      getsockname(s, reinterpret_cast<sockaddr*>(&any), &length) != 0) {
    const int error = errno;
    close(s);
    throw RuntimeFailure(fmt::format("liveness: cannot bind a UDP port: {}", std::strerror(error)));
  }
  port = ntohs(any.sin_port);
  return s;
}

// Each IPv4 address of an interface that is up, loopback only where there is no other.
std::vector<std::uint32_t> own_addresses() {
  std::vector<std::uint32_t> addresses;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (const ifaddrs* i = list; i; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
          (i->ifa_flags & IFF_LOOPBACK))
        continue;
      addresses.push_back(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
    }
    freeifaddrs(list);
  }
  if (addresses.empty()) addresses.push_back(htonl(INADDR_LOOPBACK));
  return addresses;
}

// An endpoint's port and addresses (endpoint()'s layout: 2 bytes of port, then 4 bytes per address).
std::vector<sockaddr_in> addresses_in(const std::vector<std::uint8_t>& endpoint) {
  std::vector<sockaddr_in> out;
  if (endpoint.size() < 2) return out;
  std::uint16_t port = 0;
  std::memcpy(&port, endpoint.data(), 2);
  for (std::size_t at = 2; at + 4 <= endpoint.size(); at += 4) {
    std::uint32_t ipv4 = 0;
    std::memcpy(&ipv4, endpoint.data() + at, 4);
    out.push_back(address_of(ipv4, port));
  }
  return out;
}

}  // namespace

Liveness::Liveness(int rank) : rank_(rank), socket_(open_socket(port_)) {
  responder_ = std::jthread([this](std::stop_token stop) {
    while (!stop.stop_requested()) {
      pollfd ready{socket_, POLLIN, 0};
      if (poll(&ready, 1, 100) > 0) answer_pings();  // 100 ms: how soon the thread sees it must stop
    }
  });
}

Liveness::~Liveness() {
  responder_.request_stop();
  if (responder_.joinable()) responder_.join();
  close(socket_);
}

void Liveness::answer_pings() {
  for (;;) {
    Datagram in{};
    sockaddr_in from{};
    socklen_t length = sizeof from;
    const ssize_t n = recvfrom(socket_, &in, sizeof in, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &length);
    if (n < 0) return;
    if (n != sizeof in || in.magic != ping_magic) continue;
    const Datagram out{pong_magic, rank_};
    sendto(socket_, &out, sizeof out, 0, reinterpret_cast<const sockaddr*>(&from), length);
  }
}

std::vector<std::uint8_t> Liveness::endpoint() const {
  std::vector<std::uint8_t> bytes(2);
  std::memcpy(bytes.data(), &port_, 2);
  for (std::uint32_t ipv4 : own_addresses()) {
    const auto* b = reinterpret_cast<const std::uint8_t*>(&ipv4);
    bytes.insert(bytes.end(), b, b + 4);
  }
  return bytes;
}

std::vector<int> Liveness::silent_ranks(std::chrono::milliseconds wait) const {
  std::set<int> silent;
  std::vector<std::vector<sockaddr_in>> addresses;  // each rank's, read once for every round of pings
  for (int r = 0; r < static_cast<int>(peers_.size()); ++r) {
    addresses.push_back(addresses_in(peers_[static_cast<std::size_t>(r)]));
    if (r != rank_) silent.insert(r);
  }
  std::uint16_t port = 0;
  const int s = open_socket(port);
  const Datagram ping{ping_magic, rank_};
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!silent.empty() && std::chrono::steady_clock::now() < deadline) {
    for (int r : silent)
      for (const sockaddr_in& a : addresses[static_cast<std::size_t>(r)])
        sendto(s, &ping, sizeof ping, 0, reinterpret_cast<const sockaddr*>(&a), sizeof a);
    const auto round_end = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
    for (auto now = std::chrono::steady_clock::now(); now < round_end; now = std::chrono::steady_clock::now()) {
      pollfd ready{s, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(round_end - now).count();
      if (poll(&ready, 1, static_cast<int>(std::max<std::int64_t>(left, 1))) <= 0) continue;
      Datagram in{};
      if (recv(s, &in, sizeof in, MSG_DONTWAIT) == sizeof in && in.magic == pong_magic) silent.erase(in.rank);
    }
  }
  close(s);
  return {silent.begin(), silent.end()};
}

std::string silent_in_words(const std::vector<int>& silent, const std::vector<std::string>& hosts, int me) {
  if (silent.empty()) return "";
  const auto host_of = [&](int r) {
    return r >= 0 && r < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(r)] : std::string("?");
  };
  if (hosts.size() > 2 && silent.size() + 1 == hosts.size())
    return fmt::format("no other rank answers: this rank's host ({}) is the one cut off", host_of(me));
  std::vector<std::string> silent_hosts;
  for (int r : silent)
    if (std::find(silent_hosts.begin(), silent_hosts.end(), host_of(r)) == silent_hosts.end())
      silent_hosts.push_back(host_of(r));
  const std::string ranks = join(silent, ", ", [](int r) { return std::to_string(r); });
  const std::string where = join(silent_hosts, ", ", [](const std::string& h) { return h; });
  return silent.size() == 1
             ? fmt::format("rank {} ({}) does not answer: its host is cut off or the rank is gone", ranks, where)
             : fmt::format("ranks {} ({}) do not answer: their hosts are cut off or the ranks are gone", ranks, where);
}

}  // namespace ferry
