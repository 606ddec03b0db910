#pragma once
// What p2p-ce and p2p-sm reach of the participants on other ranks of this host, a rank per device: their
// memory, exported by each rank (Backend::export_shared), gathered over MPI and mapped into this process
// (CUDA IPC). In one process every participant's memory is already at hand.
#include <cstdint>
#include <vector>

#include "backend/backend.hpp"
#include "transport/world.hpp"

namespace ferry::transport {

struct RankMemory {
  int participant = -1;
  int device = -1;              // the device it drives, as that rank numbers it
  std::vector<Buffer> buffers;  // mapped here, in the order that rank gave its handles; empty for this rank
};

// Every rank calls it at once with its participant, device and handles (the same number on every rank, in the
// same order); returns every participant's, by participant index, mapped for `device` to reach.
std::vector<RankMemory> map_every_rank(Backend& backend, const World& world, int participant, int device,
                                       const std::vector<std::vector<std::uint8_t>>& handles);

}  // namespace ferry::transport
