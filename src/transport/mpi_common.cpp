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
    return fmt::format("needs 2 or more MPI ranks, one per device: mpirun -np 2 ferry run beff --transport {}",
                       to_string(kind));
  if (group.largest_message > static_cast<std::uint64_t>(INT_MAX))
    return fmt::format("a message of {} B is more than one MPI call carries", group.largest_message);
  // The emulator's device memory is host memory, which any MPI reaches.
  if (kind == Kind::mpi_cuda && !backend.capabilities().host_reaches_device_memory) return cuda_awareness_gap();
  return "";
}

void mpi_exchange(const Route& route, const void* send, void* receive, std::uint64_t bytes, std::int64_t exchange) {
#if FERRY_WITH_MPI
  const int count = static_cast<int>(bytes);
  const int tag = static_cast<int>(exchange % 32768);  // the MPI standard's least tag bound
  if (route.send_to >= 0 && route.receive_from >= 0) {
    FERRY_MPI(MPI_Sendrecv(send, count, MPI_BYTE, route.send_to, tag, receive, count, MPI_BYTE, route.receive_from, tag,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  } else if (route.send_to >= 0) {
    FERRY_MPI(MPI_Send(send, count, MPI_BYTE, route.send_to, tag, MPI_COMM_WORLD));
  } else if (route.receive_from >= 0) {
    FERRY_MPI(MPI_Recv(receive, count, MPI_BYTE, route.receive_from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
#else
  (void)route, (void)send, (void)receive, (void)bytes, (void)exchange;
  throw RuntimeFailure("this ferry was built without MPI");
#endif
}

}  // namespace ferry::transport
