#pragma once
// The host's side of +resident (resident_sort.hpp): launches the cluster on a
// stream of its own, rings a doorbell per sort and polls the teams' done
// flags; ends the kernel when destroyed.
#include <cstdint>
#include <memory>

#include "backend/backend.hpp"

namespace ferry::dispatch {

class ResidentSorter {
 public:
  // `in` and `out`: mapped host memory of `count` keys, sorted in tiles of `tile`, one team each.
  ResidentSorter(Backend& backend, int device, const Buffer& in, Buffer& out, std::uint64_t count, std::uint64_t tile);
  ~ResidentSorter();
  ResidentSorter(const ResidentSorter&) = delete;
  ResidentSorter& operator=(const ResidentSorter&) = delete;

  // Releases the keys now in `in` and returns once every team has written its
  // tile of the sorted keys to `out`; throws when a team does not answer in time.
  void sort();

 private:
  int teams_;
  Buffer flags_;  // mapped: the doorbell, then a done flag per team
  std::unique_ptr<Stream> stream_;
  std::uint64_t sorts_ = 0;
};

}  // namespace ferry::dispatch
