#pragma once
// +resident: +cluster's kernel launched once and left running across sorts.
// The host writes sort number s to a doorbell in mapped memory once the keys
// are in `from`; the cluster sorts them into `to`, and each team raises its
// own done flag to s. A sort then costs no launch and no stream sync: beyond
// its work, a doorbell's trip across the link and a flag's trip back.
#include <cstdint>

#include "backend/hd.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"

namespace ferry::dispatch {

inline constexpr std::uint64_t resident_stop = ~0ull - 1;  // on the doorbell: no more sorts, the kernel ends
inline constexpr std::uint64_t resident_gave_up =
    ~0ull;  // on a done flag: the kernel waited past its timeout and ended

// What team 0 saw at the doorbell, for every team: team 0 alone decides, so
// that no team starts a sort that another has given up on.
enum class Doorbell : std::uint32_t { sort, stop, gave_up };

// Where team 0 leaves its decision: a word after the tile in on-chip memory.
inline std::size_t resident_on_chip_bytes(std::uint64_t tile) { return on_chip_bytes(tile) + sizeof(std::uint32_t); }

template <int Threads>
struct ResidentClusterSort {
  static constexpr int threads_per_team = Threads;
  const std::uint32_t* from;  // mapped host memory
  std::uint32_t* to;          // mapped host memory
  std::uint64_t count, tile;
  const std::uint64_t* doorbell;  // mapped: the last sort the host released, or resident_stop
  std::uint64_t* done;            // mapped: a flag per team, the last sort whose keys it wrote
  std::uint64_t idle_timeout_ns;  // the longest the kernel waits for the next sort

  FERRY_HD Doorbell await(std::uint64_t sort) const {
    const std::uint64_t since = timeout_clock_ns();
    for (int polls = 1;; ++polls) {
      const std::uint64_t bell = load_relaxed_system(doorbell);
      if (bell == resident_stop) return Doorbell::stop;
      if (bell >= sort) {
        fence_acquire_system();  // the keys the host wrote before ringing
        return Doorbell::sort;
      }
      if (polls % 64 == 0 && timeout_clock_ns() - since > idle_timeout_ns) return Doorbell::gave_up;
      spin_pause();
    }
  }

  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    const std::size_t decision_at = on_chip_bytes(tile);
    for (std::uint64_t sort = 1;; ++sort) {
      if (team.index() == 0 && team.rank() == 0)
        *reinterpret_cast<Doorbell*>(team.shared() + decision_at) = await(sort);
      team.cluster_sync();  // team 0's decision, and through it the host's keys, reach every team
      const Doorbell next = *reinterpret_cast<const Doorbell*>(team.peer_shared(0) + decision_at);
      if (next != Doorbell::sort) {
        if (next == Doorbell::gave_up && team.rank() == 0) store_release_system(done + team.index(), resident_gave_up);
        team.cluster_sync();  // team 0 stays until every team has read its decision
        return;
      }
      run_cluster_sort(team, from, to, count, tile);
      team.sync();  // the team's keys are written
      if (team.rank() == 0) {
        fence_release_system();
        store_relaxed_system(done + team.index(), sort);
      }
    }
  }
};

}  // namespace ferry::dispatch
