#pragma once
// mpi-staged's path (device -> pinned host, MPI, host -> device) between each
// pair of neighbouring ranks, one pair at a time: in a ring that runs all at
// once every rank waits on its slowest neighbour, so a slow pair slows them all
// and cannot be told apart; alone, each pair's time is its own. doctor's fleet
// mode reads them to name the slowest pair of nodes.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "transport/world.hpp"

namespace ferry::transport {

struct PairTime {
  int from = 0;  // ranks
  int to = 0;
  std::string from_host, to_host;
  // The sender's steady clock from its first copy to the receiver's word that
  // the message is in its device memory: one per repetition, the warm-up left out.
  std::vector<double> seconds;
  bool intact = false;  // every byte arrived in the receiver's device memory
};

// Every rank calls it with its device; on rank 0 the pairs 0 -> 1, 1 -> 2, ...,
// n-1 -> 0 in that order (one pair when there are 2 ranks each way: 0 -> 1, 1 -> 0);
// empty elsewhere, and empty everywhere when there is one rank.
// `corrupt_at`: a rank whose received message gets one byte changed before it
// is checked (the test hook), or -1.
std::vector<PairTime> time_staged_pairs(Backend& backend, World& world, int device, std::uint64_t bytes,
                                        int repetitions, int corrupt_at = -1);

// Every rank calls it with its lines of the ring's pairs (k -> k + 1, one a
// rank): "k seconds..." from whoever timed pair k, "k intact 0|1" from its
// receiver. On rank 0 every pair, its ranks and hosts filled in; empty elsewhere.
std::vector<PairTime> gather_pair_times(World& world, std::string lines);

}  // namespace ferry::transport
