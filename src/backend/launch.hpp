#pragma once
// Launching a FERRY_HD kernel: kernel(i) for every i in [0, count), in stream
// order. On cuda a grid-stride launch; on the emulator a loop on the stream's
// thread. A source that calls this is compiled as CUDA when the CUDA backend
// is built (ferry_kernel_sources in CMake), so one body serves both.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "backend/backend.hpp"
#include "backend/hd.hpp"
#include "core/error.hpp"

#if FERRY_WITH_CUDA && defined(__CUDACC__)
#include "backend/cuda/cuda_launch.cuh"
#endif

namespace ferry {

template <class>
inline constexpr bool always_false = false;

// When a kernel may start relative to the stream's work before it.
enum class StreamOrder {
  complete,  // once that work has finished
  // Once the kernel before it lets go (Hopper's programmatic dependent launch):
  // its threads then wait on the device until that kernel has finished and
  // its writes are visible, so a dependent chain stays correct while each
  // launch overlaps the previous kernel's tail. Needs
  // DeviceFeatures::programmatic_launch to gain anything; the emulator's
  // streams are always complete, which satisfies it.
  programmatic,
};

template <class Kernel>
void parallel_for(Stream& stream, std::int64_t count, const Kernel& kernel, StreamOrder order = StreamOrder::complete) {
  static_assert(std::is_trivially_copyable_v<Kernel>, "a kernel is copied to the device by value");
  if (count <= 0) return;
#if FERRY_WITH_CUDA
#if defined(__CUDACC__)
  if (stream.backend_kind() == BackendKind::cuda) {
    cuda::parallel_for(stream.native_handle(), stream.device(), count, kernel, order == StreamOrder::programmatic);
    return;
  }
#else
  static_assert(always_false<Kernel>, "list this source in ferry_kernel_sources(): it launches kernels");
#endif
#endif
  (void)order;  // the emulator's stream order is always complete
  stream.enqueue_host([kernel, count] {
    for (std::int64_t i = 0; i < count; ++i) kernel(i);
  });
}

// Where an emulated all_at_once launch's teams wait for each other. (Not
// std::barrier: GCC 12 warns falsely inside its atomic wait when nvcc is the driver.)
class TeamBarrier {
 public:
  explicit TeamBarrier(int teams) : teams_(teams) {}
  void arrive_and_wait() { arrive_and_wait_or(false); }
  // The same, then: was the predicate true for any of the arrivals?
  bool arrive_and_wait_or(bool predicate) {
    std::unique_lock lock(mutex_);
    const std::uint64_t generation = generation_;
    any_ = any_ || predicate;
    if (++arrived_ == teams_) {
      result_ = any_;
      any_ = false;
      arrived_ = 0;
      ++generation_;
      all_arrived_.notify_all();
      return result_;
    }
    all_arrived_.wait(lock, [&] { return generation_ != generation; });
    return result_;  // the next round cannot end before this caller arrives again
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  const int teams_;
  int arrived_ = 0;
  bool any_ = false, result_ = false;
  std::uint64_t generation_ = 0;
};

// A team is threads that run one body together and can wait for each other: a
// CUDA thread block, or on the emulator a single thread (so waiting is free).
struct HostTeam {
  int team_index = 0;
  int team_count = 1;
  std::byte* shared_memory = nullptr;
  TeamBarrier* all_teams = nullptr;          // set in an all_at_once or one_cluster launch
  std::byte* const* every_shared = nullptr;  // set in a one_cluster launch: each team's on-chip memory
  FERRY_HD int index() const { return team_index; }
  FERRY_HD int count() const { return team_count; }
  FERRY_HD int rank() const { return 0; }
  FERRY_HD int size() const { return 1; }
  FERRY_HD void sync() const {}
  FERRY_HD bool sync_or(bool predicate) const {
    return predicate;
  }  // waits for the team, then: was it true for any member?
  // The same for part of the team: the `threads` threads (whole warps) that
  // name barrier `barrier` (1..15; sync() is 0).
  FERRY_HD bool sync_or_among(int barrier, int threads, bool predicate) const {
    (void)barrier;
    (void)threads;
    return predicate;
  }
  // The team's on-chip memory: the shared_bytes the launch asked for.
  FERRY_HD std::byte* shared() const { return shared_memory; }
  // Waits for every team of the launch, and makes their writes visible: only in an all_at_once launch.
  FERRY_HD void grid_sync() const {
#if !defined(__CUDA_ARCH__)
    all_teams->arrive_and_wait();
#endif
  }
  // Only in a one_cluster launch: waits for every team of the cluster, and
  // makes their writes to on-chip memory visible.
  FERRY_HD void cluster_sync() const { grid_sync(); }
  // Only in a one_cluster launch: team `team`'s on-chip memory, as shared() is to it.
  FERRY_HD std::byte* peer_shared(int team) const { return every_shared[team]; }
};

// How a team launch places its teams.
enum class Residency {
  any,          // teams may run one after another (they never wait for each other)
  all_at_once,  // every team runs at once, so teams may wait for each other: a persistent kernel
  // Every team runs at once as one thread-block cluster (at most
  // DeviceFeatures::cluster_teams): teams may wait for each other
  // (team.cluster_sync()) and reach each other's on-chip memory (team.peer_shared()).
  one_cluster,
};

// The emulator runs an all_at_once launch's teams as threads: a few keep a
// 2-core machine responsive.
inline constexpr int emulated_resident_teams = 4;
// A one_cluster launch's teams are threads too, as many as Hopper's largest
// cluster, so that the emulator runs the shapes an H100 runs.
inline constexpr int emulated_cluster_teams = 16;

// How many teams of `kernel`, with `shared_bytes` of on-chip memory each, an
// all_at_once launch on the stream's device holds at once.
template <class Kernel>
int resident_teams(Stream& stream, const Kernel& kernel, std::size_t shared_bytes = 0) {
  (void)kernel;  // only its type matters
#if FERRY_WITH_CUDA
#if defined(__CUDACC__)
  if (stream.backend_kind() == BackendKind::cuda) return cuda::resident_teams<Kernel>(stream.device(), shared_bytes);
#else
  static_assert(always_false<Kernel>, "list this source in ferry_kernel_sources(): it asks about a kernel");
#endif
#endif
  (void)stream;
  (void)shared_bytes;
  return emulated_resident_teams;
}

// kernel(team) for `teams` teams; the kernel's operator() is a template over
// the team type, and each team has `shared_bytes` of on-chip memory
// (team.shared(); at most DeviceFeatures::team_shared_bytes). On cuda a block
// per team, of 256 threads unless the kernel names its own
// `threads_per_team`; for all_at_once a cooperative launch, which fails
// rather than queue teams the device cannot hold; for one_cluster a cluster
// launch of every team, which fails the same way. On the emulator one thread
// per team for all_at_once and one_cluster, else the teams in turn. `order`
// as parallel_for's, for teams that never wait for each other.
template <class Kernel>
void parallel_teams(Stream& stream, int teams, const Kernel& kernel, Residency residency, std::size_t shared_bytes = 0,
                    StreamOrder order = StreamOrder::complete) {
  static_assert(std::is_trivially_copyable_v<Kernel>, "a kernel is copied to the device by value");
  if (teams <= 0) return;
  if (order == StreamOrder::programmatic && residency != Residency::any)
    throw RuntimeFailure("a kernel whose teams wait for each other cannot launch while the one before drains");
#if FERRY_WITH_CUDA
#if defined(__CUDACC__)
  if (stream.backend_kind() == BackendKind::cuda) {
    if (residency == Residency::one_cluster) {
      cuda::cluster_teams(stream.native_handle(), stream.device(), teams, kernel, shared_bytes);
      return;
    }
    cuda::parallel_teams(stream.native_handle(), stream.device(), teams, kernel, residency == Residency::all_at_once,
                         shared_bytes, order == StreamOrder::programmatic);
    return;
  }
#else
  static_assert(always_false<Kernel>, "list this source in ferry_kernel_sources(): it launches kernels");
#endif
#endif
  if (residency == Residency::any) {
    stream.enqueue_host([kernel, teams, shared_bytes] {
      std::vector<std::byte> shared(shared_bytes);
      for (int t = 0; t < teams; ++t) {
        HostTeam team{t, teams, shared.data()};
        kernel(team);
      }
    });
    return;
  }
  if (residency == Residency::one_cluster && teams > emulated_cluster_teams)
    throw RuntimeFailure("a cluster of " + std::to_string(teams) + " teams: the emulator's clusters hold at most " +
                         std::to_string(emulated_cluster_teams));
  stream.enqueue_host([kernel, teams, shared_bytes] {
    TeamBarrier all_teams(teams);
    std::vector<std::vector<std::byte>> shared(static_cast<std::size_t>(teams), std::vector<std::byte>(shared_bytes));
    std::vector<std::byte*> every_shared;
    for (auto& memory : shared) every_shared.push_back(memory.data());
    std::vector<std::thread> threads;
    for (int t = 0; t < teams; ++t)
      threads.emplace_back([&, t] {
        HostTeam team{t, teams, every_shared[static_cast<std::size_t>(t)], &all_teams, every_shared.data()};
        kernel(team);
      });
    for (auto& thread : threads) thread.join();
  });
}

}  // namespace ferry
