#pragma once
// What each transport's file offers transport.cpp. Internal to transport/.
#include <memory>
#include <string>

#include "transport/transport.hpp"

namespace ferry::transport {

// p2p_ce.cpp and p2p_sm.cpp: one process driving every device of the group.
std::string peer_reason(Kind kind, Backend& backend, const World& world, const Group& group);
std::unique_ptr<Transport> open_p2p_ce(Backend& backend, const Group& group);
std::unique_ptr<Transport> open_p2p_sm(Backend& backend, const Group& group, const Options& options);

// nccl.cpp
std::string nccl_reason(Backend& backend, const World& world, const Group& group);
std::unique_ptr<Transport> open_nccl(Backend& backend, World& world, const Group& group);

// host_staged.cpp: one process driving every device, through the host.
std::string host_staged_reason(const World& world, const Group& group);
std::unique_ptr<Transport> open_host_staged(Backend& backend, const Group& group);

// mpi_staged.cpp and mpi_cuda.cpp: one rank per device.
std::string mpi_reason(Kind kind, Backend& backend, const World& world, const Group& group);
std::unique_ptr<Transport> open_mpi_staged(Backend& backend, const Group& group);
std::unique_ptr<Transport> open_mpi_cuda(Backend& backend, const Group& group);

// The participant a local participant sends to, and the one it receives
// from, on route k over a plan's exchanges (-1 where it never does): fixed
// for every pattern ferry has, whichever exchange it is.
Route peers_of(const ExchangePlan& plan, int participant, int k = 0);

}  // namespace ferry::transport
