// mpi-staged: the host path. Each message goes device -> pinned host memory
// by the copy engine, host -> host by MPI, host -> device; each step waits for
// the one before, as an application that stages through the host does. The
// routes of a fully-connected exchange take each step together, as the
// thesis' MPI+PCIe prototype does.
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
        pitch_(slot_pitch(group.largest_message)),
        send_host_(backend.allocate_host(MemoryKind::pinned, pitch_ * group.routes)),
        receive_host_(backend.allocate_host(MemoryKind::pinned, pitch_ * group.routes)) {}

  Kind kind() const override { return Kind::mpi_staged; }
  Clock clock() const override { return Clock::host; }
  std::string how(std::uint64_t) const override { return "D2H + MPI + H2D"; }

  std::vector<double> run(const ExchangePlan& plan) override {
    const int fan = plan.fan();
    std::vector<RouteBuffers> host(static_cast<std::size_t>(fan));
    for (int k = 0; k < fan; ++k) host[k] = {send_host_.data() + k * pitch_, receive_host_.data() + k * pitch_};
    const auto start = HostClock::now();
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      bool sends = false, receives = false;
      for (int k = 0; k < fan; ++k) {
        if (plan.route(me_.index, i, k).send_to < 0) continue;
        stream_->copy(send_host_.data() + k * pitch_, me_.send + plan.offset(i, k), plan.bytes);
        sends = true;
      }
      if (sends) stream_->synchronize();
      mpi_exchange(plan, me_.index, i, host);
      for (int k = 0; k < fan; ++k) {
        if (plan.route(me_.index, i, k).receive_from < 0) continue;
        stream_->copy(me_.receive + plan.offset(i, k), receive_host_.data() + k * pitch_, plan.bytes);
        receives = true;
      }
      if (receives) stream_->synchronize();
    }
    return {seconds_between(start, HostClock::now())};
  }

 private:
  const Participant me_;
  std::unique_ptr<Stream> stream_;
  const std::uint64_t pitch_;
  Buffer send_host_, receive_host_;
};

}  // namespace

std::unique_ptr<Transport> open_mpi_staged(Backend& backend, const Group& group) {
  return std::make_unique<MpiStaged>(backend, group);
}

}  // namespace ferry::transport
