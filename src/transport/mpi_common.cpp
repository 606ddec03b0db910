#include <fmt/format.h>

#include <climits>

#include "core/error.hpp"
#include "transport/mpi_common.hpp"
#include "transport/transports.hpp"

#if FERRY_WITH_MPI
#include "core/mpi_check.hpp"
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace ferry::transport {
namespace {

// Whether the MPI library takes device memory, as it says at run time; "" when it does.
std::string cuda_awareness_gap() {
#if FERRY_WITH_MPI && defined(OMPI_HAVE_MPI_EXT_CUDA)
  if (MPIX_Query_cuda_support() == 1) return "";
  return "the MPI library is not CUDA-aware (MPIX_Query_cuda_support() returns 0), so it cannot take device memory";
#else
  return "the MPI library offers no MPIX_Query_cuda_support(), so ferry cannot know that it takes device memory";
#endif
}

}  // namespace

std::string mpi_reason(Kind kind, Backend& backend, const World& world, const Group& group) {
  if (!World::built_with_mpi()) return "this ferry was built without MPI (scripts/setup.sh builds it with OpenMPI)";
  if (!world.mpi() || world.size() < 2)
    return fmt::format(
        "needs 2 or more MPI ranks, one per device: mpirun -np 2 ferry run beff (or topo) --transport {}",
        to_string(kind));
  if (group.largest_message > static_cast<std::uint64_t>(INT_MAX))
    return fmt::format("a message of {} B is more than one MPI call carries", group.largest_message);
  // The emulator's device memory is host memory, which any MPI reaches.
  if (kind == Kind::mpi_cuda && !backend.capabilities().host_reaches_device_memory) return cuda_awareness_gap();
  return "";
}

void mpi_exchange(const ExchangePlan& plan, int me, std::int64_t exchange, const std::vector<RouteBuffers>& routes) {
#if FERRY_WITH_MPI
  const int count = static_cast<int>(plan.bytes);
  const int tag = static_cast<int>(exchange % 32768);  // the MPI standard's least tag bound
  if (plan.fan() == 1) {
    const Route route = plan.route(me, exchange);
    const RouteBuffers& b = routes.front();
    if (route.send_to >= 0 && route.receive_from >= 0) {
      FERRY_MPI(MPI_Sendrecv(b.send, count, MPI_BYTE, route.send_to, tag, b.receive, count, MPI_BYTE,
                             route.receive_from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (route.send_to >= 0) {
      FERRY_MPI(MPI_Send(b.send, count, MPI_BYTE, route.send_to, tag, MPI_COMM_WORLD));
    } else if (route.receive_from >= 0) {
      FERRY_MPI(MPI_Recv(b.receive, count, MPI_BYTE, route.receive_from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    return;
  }
  // Every route at once: the receives posted first, so no send waits for one.
  std::vector<MPI_Request> requests;
  for (int k = 0; k < plan.fan(); ++k) {
    const int from = plan.route(me, exchange, k).receive_from;
    if (from < 0) continue;
    requests.emplace_back();
    FERRY_MPI(MPI_Irecv(routes[k].receive, count, MPI_BYTE, from, tag, MPI_COMM_WORLD, &requests.back()));
  }
  for (int k = 0; k < plan.fan(); ++k) {
    const int to = plan.route(me, exchange, k).send_to;
    if (to < 0) continue;
    requests.emplace_back();
    FERRY_MPI(MPI_Isend(routes[k].send, count, MPI_BYTE, to, tag, MPI_COMM_WORLD, &requests.back()));
  }
  FERRY_MPI(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
#else
  (void)plan, (void)me, (void)exchange, (void)routes;
  throw RuntimeFailure("this ferry was built without MPI");
#endif
}

}  // namespace ferry::transport
