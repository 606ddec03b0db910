// mpi-cuda: MPI_Sendrecv straight on device memory, which a CUDA-aware MPI
// moves by whatever path it chooses (peer copies, GPUDirect RDMA, or staging
// of its own). Set beside p2p and mpi-staged, it shows which one it took.
#include "core/clock.hpp"
#include "transport/mpi_common.hpp"
#include "transport/transports.hpp"

namespace ferry::transport {
namespace {

class MpiCuda final : public Transport {
 public:
  explicit MpiCuda(const Group& group) : me_(group.local.at(0)) {}

  Kind kind() const override { return Kind::mpi_cuda; }
  Clock clock() const override { return Clock::host; }
  std::string how(std::uint64_t) const override { return "MPI on device memory"; }

  std::vector<double> run(const ExchangePlan& plan) override {
    const auto start = HostClock::now();
    std::vector<RouteBuffers> routes(static_cast<std::size_t>(plan.fan()));
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      for (int k = 0; k < plan.fan(); ++k) routes[k] = {me_.send + plan.offset(i, k), me_.receive + plan.offset(i, k)};
      mpi_exchange(plan, me_.index, i, routes);
    }
    return {seconds_between(start, HostClock::now())};
  }

 private:
  const Participant me_;
};

}  // namespace

std::unique_ptr<Transport> open_mpi_cuda(Backend&, const Group& group) { return std::make_unique<MpiCuda>(group); }

}  // namespace ferry::transport
