#pragma once
// What mpi-staged and mpi-cuda share: one rank per device, and the MPI calls
// of one exchange (MPI_Sendrecv for a single route; for several, every
// receive and send posted at once, then waited for).
#include <cstdint>
#include <vector>

#include "transport/exchange_plan.hpp"

namespace ferry::transport {

// Where route k's message of one exchange is sent from and received into.
struct RouteBuffers {
  const void* send = nullptr;
  void* receive = nullptr;
};

// Participant `me`'s part of `exchange` over MPI_COMM_WORLD, on every route of the plan.
void mpi_exchange(const ExchangePlan& plan, int me, std::int64_t exchange, const std::vector<RouteBuffers>& routes);

}  // namespace ferry::transport
