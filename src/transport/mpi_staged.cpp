// mpi-staged: the host path. Each message goes device -> pinned host memory
// by the copy engine, host -> host by MPI, host -> device; each step waits for
// the one before, as an application that stages through the host does.
#include "core/clock.hpp"
#include "transport/mpi_common.hpp"
#include "transport/transports.hpp"

namespace ferry::transport {
namespace {

class MpiStaged final : public Transport {
 public:
  MpiStaged(Backend& backend, const Group& group)
      : me_(group.local.at(0)),
        stream_(backend.make_stream(me_.device)),
        send_host_(backend.allocate_host(MemoryKind::pinned, group.largest_message)),
        receive_host_(backend.allocate_host(MemoryKind::pinned, group.largest_message)) {}

  Kind kind() const override { return Kind::mpi_staged; }
  Clock clock() const override { return Clock::host; }
  std::string how(std::uint64_t) const override { return "D2H + MPI + H2D"; }

  std::vector<double> run(const ExchangePlan& plan) override {
    const auto start = HostClock::now();
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      const Route route = plan.route(me_.index, i);
      const std::uint64_t at = plan.offset(i);
      if (route.send_to >= 0) {
        stream_->copy(send_host_.data(), me_.send + at, plan.bytes);
        stream_->synchronize();
      }
      mpi_exchange(route, send_host_.data(), receive_host_.data(), plan.bytes, i);
      if (route.receive_from >= 0) {
        stream_->copy(me_.receive + at, receive_host_.data(), plan.bytes);
        stream_->synchronize();
      }
    }
    return {seconds_between(start, HostClock::now())};
  }

 private:
  const Participant me_;
  std::unique_ptr<Stream> stream_;
  Buffer send_host_, receive_host_;
};

}  // namespace

std::unique_ptr<Transport> open_mpi_staged(Backend& backend, const Group& group) {
  return std::make_unique<MpiStaged>(backend, group);
}

}  // namespace ferry::transport
