#include "backend/launch.hpp"
#include "bench/link/link_peer_flag.hpp"

namespace ferry::link {

void launch_peer_flag_ping(Stream& stream, const PeerFlagPing& kernel) { parallel_for(stream, 1, kernel); }
void launch_peer_flag_answer(Stream& stream, const PeerFlagAnswer& kernel) { parallel_for(stream, 1, kernel); }

}  // namespace ferry::link
