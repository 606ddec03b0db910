// host-staged: the host path within one process, which drives every device.
// Each message goes device -> pinned host memory by the sender's copy engine,
// host -> host by memcpy into the receiver's pinned memory (shared memory, as
// the processes of one node would share it), host -> device by the
// receiver's copy engine; each step waits for the one before, for every
// message of the exchange at once. mpi-staged is the same path across ranks.
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "transport/transports.hpp"

namespace ferry::transport {
namespace {

class HostStaged final : public Transport {
 public:
  HostStaged(Backend& backend, const Group& group) : group_(group), pitch_(slot_pitch(group.largest_message)) {
    for (const Participant& p : group.local) {
      Lane lane;
      lane.stream = backend.make_stream(p.device);
      lane.send_host = backend.allocate_host(MemoryKind::pinned, pitch_ * group.routes);
      lane.receive_host = backend.allocate_host(MemoryKind::pinned, pitch_ * group.routes);
      lanes_.push_back(std::move(lane));
    }
  }

  Kind kind() const override { return Kind::host_staged; }
  Clock clock() const override { return Clock::host; }
  std::string how(std::uint64_t) const override { return "D2H + memcpy + H2D"; }

  std::vector<double> run(const ExchangePlan& plan) override {
    const int n = static_cast<int>(lanes_.size());
    const auto start = HostClock::now();
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      for (int p = 0; p < n; ++p)
        for (int k = 0; k < plan.fan(); ++k)
          if (plan.route(p, i, k).send_to >= 0)
            lanes_[p].stream->copy(host(lanes_[p].send_host, k), group_.local[p].send + plan.offset(i, k), plan.bytes);
      for (Lane& lane : lanes_) lane.stream->synchronize();
      copy_between_hosts(plan, i);
      for (int p = 0; p < n; ++p)
        for (int k = 0; k < plan.fan(); ++k)
          if (plan.route(p, i, k).receive_from >= 0)
            lanes_[p].stream->copy(group_.local[p].receive + plan.offset(i, k), host(lanes_[p].receive_host, k),
                                   plan.bytes);
      for (Lane& lane : lanes_) lane.stream->synchronize();
    }
    return std::vector<double>(n, seconds_between(start, HostClock::now()));
  }

 private:
  struct Lane {
    std::unique_ptr<Stream> stream;
    Buffer send_host, receive_host;  // a message slot per route
  };

  std::byte* host(const Buffer& buffer, int k) const { return buffer.data() + static_cast<std::uint64_t>(k) * pitch_; }

  void copy_between_hosts(const ExchangePlan& plan, std::int64_t i) {
    std::vector<HostMessage> messages;
    for (int p = 0; p < static_cast<int>(lanes_.size()); ++p)
      for (int k = 0; k < plan.fan(); ++k)
        if (const int to = plan.route(p, i, k).send_to; to >= 0)
          messages.push_back({host(lanes_[to].receive_host, k), host(lanes_[p].send_host, k)});
    transport::copy_between_hosts(messages, plan.bytes);
  }

  const Group group_;
  const std::uint64_t pitch_;
  std::vector<Lane> lanes_;
};

}  // namespace

void copy_between_hosts(const std::vector<HostMessage>& messages, std::uint64_t bytes) {
  // A thread's start costs some tens of microseconds, a 1 MiB memcpy about as much.
  constexpr std::uint64_t threaded_bytes = 1 << 20;
  if (bytes < threaded_bytes || messages.size() == 1) {
    for (const HostMessage& m : messages) std::memcpy(m.into, m.from, bytes);
    return;
  }
  std::vector<std::jthread> copies;
  for (const HostMessage& m : messages) copies.emplace_back([m, bytes] { std::memcpy(m.into, m.from, bytes); });
}

std::string host_staged_reason(const World& world, const Group& group) {
  if (world.distributed())
    return "host-staged drives every device from one process; across ranks the same path is mpi-staged";
  if (group.local.size() < 2) return "needs 2 devices in one process (--devices 0,1)";
  return "";
}

std::unique_ptr<Transport> open_host_staged(Backend& backend, const Group& group) {
  return std::make_unique<HostStaged>(backend, group);
}

}  // namespace ferry::transport
