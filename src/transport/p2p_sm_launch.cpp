#include "backend/launch.hpp"
#include "transport/p2p_sm_kernel.hpp"

namespace ferry::transport {

void launch_peer_store_exchange(Stream& stream, const PeerStoreExchange& kernel, int teams) {
  // Teams never wait for other teams of their own launch, so any residency works.
  parallel_teams(stream, teams, kernel, Residency::any);
}

int peer_store_resident_teams(Stream& stream) { return resident_teams(stream, PeerStoreExchange{}); }

}  // namespace ferry::transport
