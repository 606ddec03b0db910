#pragma once
// The fleet's pairs through NCCL, beside mpi-staged's (doctor/measure/fleet.cpp):
// each pair of neighbouring ranks in turn, rank k sending to rank k + 1 alone.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "transport/staged_pairs.hpp"
#include "transport/world.hpp"

namespace ferry::doctor {

struct NcclPairs {
  std::string skipped{};                     // why NCCL cannot run here (every rank's answer, agreed), or ""
  std::vector<transport::PairTime> pairs{};  // on rank 0, in ring order; device time of each repetition's messages
  std::uint64_t bytes = 0;                   // each message
  int messages = 0;                          // per repetition
};

// Every rank calls it with its device. Each pair opens its own communicator
// whose ranks start at the sender (participant 0 -> 1 of a one-way plan), so
// NCCL moves data between those two alone; every message is checked at the receiver.
// `corrupt_at`: a rank whose received messages get one byte changed before they are checked (the test hook), or -1.
NcclPairs time_nccl_pairs(Backend& backend, World& world, int device, std::uint64_t bytes, int repetitions,
                          int corrupt_at = -1);

}  // namespace ferry::doctor
