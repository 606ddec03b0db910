#pragma once
// What each transport's file offers transport.cpp. Internal to transport/.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transport/transport.hpp"

namespace ferry::transport {

// p2p_ce.cpp, p2p_ce_ranks.cpp and p2p_sm.cpp: one process driving every device of the group, or a rank
// per device of one host, each reaching its peers' memory through CUDA IPC (peer_access.cpp says which).
std::string peer_reason(Kind kind, Backend& backend, const World& world, const Group& group);
std::unique_ptr<Transport> open_p2p_ce(Backend& backend, const Group& group);
std::unique_ptr<Transport> open_p2p_ce_across_ranks(Backend& backend, World& world, const Group& group,
                                                    const Options& options);
std::unique_ptr<Transport> open_p2p_sm(Backend& backend, World& world, const Group& group, const Options& options);

// nccl.cpp: nccl, nccl-graph and nccl-graph-reg; the areas of the last from NCCL's allocator.
std::string nccl_reason(Kind kind, Backend& backend, const World& world, const Group& group);
std::unique_ptr<Transport> open_nccl(Kind kind, Backend& backend, World& world, const Group& group);
Buffer allocate_nccl_area(int device, std::uint64_t bytes);

// host_staged.cpp: one process driving every device, through the host.
std::string host_staged_reason(const World& world, const Group& group);
std::unique_ptr<Transport> open_host_staged(Backend& backend, const Group& group);

// The host -> host step of host-staged: every message of an exchange at once,
// as the processes of a node would copy them (a thread each; below 1 MiB one
// thread copies them all, since starting a thread costs more than such a
// copy). time_host_step() times the same function.
struct HostMessage {
  std::byte* into;
  const std::byte* from;
};
void copy_between_hosts(const std::vector<HostMessage>& messages, std::uint64_t bytes);

// mpi_staged.cpp and mpi_cuda.cpp: one rank per device.
std::string mpi_reason(Kind kind, Backend& backend, const World& world, const Group& group);
std::unique_ptr<Transport> open_mpi_staged(Backend& backend, const Group& group);
std::unique_ptr<Transport> open_mpi_cuda(Backend& backend, const Group& group);

// The participant a local participant sends to, and the one it receives
// from, on route k over a plan's exchanges (-1 where it never does): fixed
// for every pattern ferry has, whichever exchange it is.
Route peers_of(const ExchangePlan& plan, int participant, int k = 0);

}  // namespace ferry::transport
