#pragma once
// What mpi-staged and mpi-cuda share: one rank per device, and one MPI call
// per exchange (MPI_Sendrecv when the participant both sends and receives).
#include <cstdint>

#include "transport/exchange_plan.hpp"

namespace ferry::transport {

// Sends `send` to route.send_to and receives into `receive` from
// route.receive_from, over MPI_COMM_WORLD, whichever of the two the route has.
void mpi_exchange(const Route& route, const void* send, void* receive, std::uint64_t bytes, std::int64_t exchange);

}  // namespace ferry::transport
