#pragma once
// A graph's last node that tells the host it is done without a stream sync:
// one thread counts the graph's launches and raises the count in mapped host
// memory, which the host polls. stream's graph design ends each chunk with
// it, and link times a graph that does.
#include <cstdint>

#include "backend/hd.hpp"

namespace ferry {

struct CountToHost {
  std::uint64_t* count;  // device memory
  std::uint64_t* flag;   // mapped
  FERRY_HD void operator()(std::int64_t) const {
    const std::uint64_t next = *count + 1;
    *count = next;
    store_release_system(flag, next);
  }
};

}  // namespace ferry
