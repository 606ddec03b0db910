#pragma once
// Launching a FERRY_HD kernel: kernel(i) for every i in [0, count), in stream
// order. On cuda a grid-stride launch; on the emulator a loop on the stream's
// thread. A source that calls this is compiled as CUDA when the CUDA backend
// is built (ferry_kernel_sources in CMake), so one body serves both.
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

#include "backend/backend.hpp"
#include "backend/hd.hpp"

#if FERRY_WITH_CUDA && defined(__CUDACC__)
#include "backend/cuda/cuda_launch.cuh"
#endif

namespace ferry {

template <class>
inline constexpr bool always_false = false;

template <class Kernel>
void parallel_for(Stream& stream, std::int64_t count, const Kernel& kernel) {
  static_assert(std::is_trivially_copyable_v<Kernel>, "a kernel is copied to the device by value");
  if (count <= 0) return;
#if FERRY_WITH_CUDA
#if defined(__CUDACC__)
  if (stream.backend_kind() == BackendKind::cuda) {
    cuda::parallel_for(stream.native_handle(), stream.device(), count, kernel);
    return;
  }
#else
  static_assert(always_false<Kernel>, "list this source in ferry_kernel_sources(): it launches kernels");
#endif
#endif
  stream.enqueue_host([kernel, count] {
    for (std::int64_t i = 0; i < count; ++i) kernel(i);
  });
}

// A team is threads that run one body together and can wait for each other: a
// CUDA thread block, or on the emulator a single thread (so waiting is free).
struct HostTeam {
  int team_index = 0;
  int team_count = 1;
  FERRY_HD int index() const { return team_index; }
  FERRY_HD int count() const { return team_count; }
  FERRY_HD int rank() const { return 0; }
  FERRY_HD int size() const { return 1; }
  FERRY_HD void sync() const {}
  FERRY_HD bool sync_or(bool predicate) const { return predicate; }  // waits for the team, then: was it true for any member?
};

// How a team launch places its teams.
enum class Residency {
  any,          // teams may run one after another (they never wait for each other)
  all_at_once,  // every team runs at once, so teams may wait for each other: a persistent kernel
};

// kernel(team) for `teams` teams; the kernel's operator() is a template over
// the team type. On cuda a block of 256 threads per team, and for all_at_once
// a cooperative launch, which fails rather than queue teams the device cannot
// hold. On the emulator one thread per team for all_at_once, else the teams in turn.
template <class Kernel>
void parallel_teams(Stream& stream, int teams, const Kernel& kernel, Residency residency) {
  static_assert(std::is_trivially_copyable_v<Kernel>, "a kernel is copied to the device by value");
  if (teams <= 0) return;
#if FERRY_WITH_CUDA
#if defined(__CUDACC__)
  if (stream.backend_kind() == BackendKind::cuda) {
    cuda::parallel_teams(stream.native_handle(), stream.device(), teams, kernel, residency == Residency::all_at_once);
    return;
  }
#else
  static_assert(always_false<Kernel>, "list this source in ferry_kernel_sources(): it launches kernels");
#endif
#endif
  if (residency == Residency::any) {
    stream.enqueue_host([kernel, teams] {
      for (int t = 0; t < teams; ++t) {
        HostTeam team{t, teams};
        kernel(team);
      }
    });
    return;
  }
  stream.enqueue_host([kernel, teams] {
    std::vector<std::thread> threads;
    for (int t = 0; t < teams; ++t)
      threads.emplace_back([&kernel, t, teams] {
        HostTeam team{t, teams};
        kernel(team);
      });
    for (auto& thread : threads) thread.join();
  });
}

}  // namespace ferry
