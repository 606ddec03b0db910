#pragma once
// The CUDA side of ferry::parallel_for (backend/launch.hpp).
#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "backend/cuda/cuda_check.hpp"
#include "core/error.hpp"

namespace ferry::cuda {

// With `programmatic`, launched with programmatic stream serialization: it
// lets the next kernel launch at once, then waits until the kernel before it
// has finished and its writes are visible (PTX griddepcontrol, sm_90 and later).
template <class Kernel, bool programmatic>
__global__ void parallel_for_kernel(std::int64_t count, Kernel kernel) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (programmatic) {
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
  }
#endif
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    kernel(i);
  }
}

// Launches `function` with programmatic stream serialization allowed: it may
// start while the kernel before it drains, and waits for it on the device.
template <class... Parameters, class... Arguments>
void launch_programmatic(void (*function)(Parameters...), unsigned blocks, unsigned threads, std::size_t shared_bytes,
                         void* stream, Arguments&&... arguments) {
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = static_cast<cudaStream_t>(stream);
  config.attrs = &early;
  config.numAttrs = 1;
  FERRY_CUDA(cudaLaunchKernelEx(&config, function, std::forward<Arguments>(arguments)...));
}

template <class Kernel>
void parallel_for(void* stream, int device, std::int64_t count, const Kernel& kernel, bool programmatic) {
  constexpr std::int64_t threads = 256;
  // Enough blocks to fill any Hopper many times over; the grid-stride loop does the rest.
  constexpr std::int64_t most_blocks = 16384;
  const auto blocks = static_cast<unsigned>(std::min((count + threads - 1) / threads, most_blocks));
  const unsigned block_threads = static_cast<unsigned>(std::min(count, threads));
  use_device(device);
  if (!programmatic) {
    parallel_for_kernel<Kernel, false><<<blocks, block_threads, 0, static_cast<cudaStream_t>(stream)>>>(count, kernel);
    FERRY_CUDA(cudaGetLastError());
    return;
  }
  launch_programmatic(parallel_for_kernel<Kernel, true>, blocks, block_threads, 0, stream, count, kernel);
}

// ferry::parallel_teams' team on the GPU: one thread block. Host-callable
// spellings only so that FERRY_HD templates may name them.
struct DeviceTeam {
  __host__ __device__ int index() const {
#if defined(__CUDA_ARCH__)
    return static_cast<int>(blockIdx.x);
#else
    return 0;
#endif
  }
  __host__ __device__ int count() const {
#if defined(__CUDA_ARCH__)
    return static_cast<int>(gridDim.x);
#else
    return 1;
#endif
  }
  __host__ __device__ int rank() const {
#if defined(__CUDA_ARCH__)
    return static_cast<int>(threadIdx.x);
#else
    return 0;
#endif
  }
  __host__ __device__ int size() const {
#if defined(__CUDA_ARCH__)
    return static_cast<int>(blockDim.x);
#else
    return 1;
#endif
  }
  __host__ __device__ void sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
  __host__ __device__ bool sync_or(bool predicate) const {
#if defined(__CUDA_ARCH__)
    return __syncthreads_or(predicate) != 0;
#else
    return predicate;
#endif
  }
  // A named barrier of `threads` threads (whole warps), as bar.red.or.
  __host__ __device__ bool sync_or_among(int barrier, int threads, bool predicate) const {
#if defined(__CUDA_ARCH__)
    unsigned any;
    asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; bar.red.or.pred q, %2, %3, p; selp.u32 %0, 1, 0, q; }"
                 : "=r"(any)
                 : "r"(static_cast<unsigned>(predicate)), "r"(barrier), "r"(threads)
                 : "memory");
    return any != 0;
#else
    (void)barrier;
    (void)threads;
    return predicate;
#endif
  }
  __host__ __device__ std::byte* shared() const {
#if defined(__CUDA_ARCH__)
    extern __shared__ __align__(16) unsigned char team_shared_memory[];
    return reinterpret_cast<std::byte*>(team_shared_memory);
#else
    return nullptr;
#endif
  }
  // Only in a cooperative launch: elsewhere the grid cannot be waited for.
  __host__ __device__ void grid_sync() const {
#if defined(__CUDA_ARCH__)
    cooperative_groups::this_grid().sync();
#endif
  }
  // Only in a cluster launch of one cluster (cluster_teams below), where a
  // team's index is its rank in the cluster.
  __host__ __device__ void cluster_sync() const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::this_cluster().sync();
#endif
  }
  __host__ __device__ std::byte* peer_shared(int team) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return cooperative_groups::this_cluster().map_shared_rank(shared(), team);
#else
    (void)team;
    return nullptr;
#endif
  }
};

// Threads in one team: 256 unless the kernel names its own `threads_per_team`.
template <class Kernel>
constexpr int threads_per_team() {
  if constexpr (requires { Kernel::threads_per_team; }) {
    return Kernel::threads_per_team;
  } else {
    return 256;
  }
}

// With `programmatic`, as parallel_for_kernel: the next kernel may launch at
// once, and the teams wait here until the kernel before has finished.
template <class Kernel, bool programmatic = false>
__global__ void __launch_bounds__(threads_per_team<Kernel>()) teams_kernel(Kernel kernel) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (programmatic) {
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
  }
#endif
  DeviceTeam team;
  kernel(team);
}

// A kernel may use more than 48 KiB of on-chip memory only once it has said
// so, per device; said once here, outside any timed launch after the first.
template <class Kernel, bool programmatic = false>
void allow_shared_bytes(int device, std::size_t bytes) {
  constexpr std::size_t without_asking = 48 << 10;
  if (bytes <= without_asking) return;
  static std::mutex mutex;
  static std::map<int, std::size_t> allowed;
  const std::lock_guard lock(mutex);
  std::size_t& now = allowed[device];
  if (bytes <= now) return;
  FERRY_CUDA(cudaFuncSetAttribute(teams_kernel<Kernel, programmatic>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
  now = bytes;
}

// What `ask` answers about the kernel on `device` with `shared_bytes` of
// on-chip memory per team: asked once per device and size (and per question:
// each lambda is its own type), so that a timed launch does not ask again.
template <class Kernel, class Ask>
int asked_once(int device, std::size_t shared_bytes, const Ask& ask) {
  static std::mutex mutex;
  static std::map<std::pair<int, std::size_t>, int> known;
  const std::lock_guard lock(mutex);
  const auto it = known.find({device, shared_bytes});
  if (it != known.end()) return it->second;
  // Without the opt-in, a team asking for more than 48 KiB fits nowhere.
  use_device(device);
  allow_shared_bytes<Kernel>(device, shared_bytes);
  return known[{device, shared_bytes}] = ask();
}

// How many of the kernel's teams the device holds at once.
template <class Kernel>
int resident_teams(int device, std::size_t shared_bytes) {
  return asked_once<Kernel>(device, shared_bytes, [&] {
    int per_multiprocessor = 0, multiprocessors = 0;
    FERRY_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, teams_kernel<Kernel>,
                                                             threads_per_team<Kernel>(), shared_bytes));
    FERRY_CUDA(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    return per_multiprocessor * multiprocessors;
  });
}

template <class Kernel>
void parallel_teams(void* stream, int device, int teams, const Kernel& kernel, bool all_at_once,
                    std::size_t shared_bytes, bool programmatic) {
  constexpr int threads = threads_per_team<Kernel>();
  use_device(device);
  if (programmatic) {
    allow_shared_bytes<Kernel, true>(device, shared_bytes);
    launch_programmatic(teams_kernel<Kernel, true>, teams, threads, shared_bytes, stream, kernel);
    return;
  }
  allow_shared_bytes<Kernel>(device, shared_bytes);
  if (!all_at_once) {
    teams_kernel<<<teams, threads, shared_bytes, static_cast<cudaStream_t>(stream)>>>(kernel);
    FERRY_CUDA(cudaGetLastError());
    return;
  }
  const int capacity = resident_teams<Kernel>(device, shared_bytes);
  if (teams > capacity)
    throw RuntimeFailure("a persistent kernel of " + std::to_string(teams) + " teams does not fit on device " +
                         std::to_string(device) + ", which holds " + std::to_string(capacity) + " at once");
  Kernel argument = kernel;
  void* arguments[] = {&argument};
  FERRY_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(teams_kernel<Kernel>), dim3(teams), dim3(threads),
                                         arguments, shared_bytes, static_cast<cudaStream_t>(stream)));
}

// The most teams of one thread-block cluster (Hopper) of the kernel: sizes
// above the portable 8 allowed.
template <class Kernel>
int largest_cluster(int device, std::size_t shared_bytes) {
  return asked_once<Kernel>(device, shared_bytes, [&] {
    FERRY_CUDA(cudaFuncSetAttribute(teams_kernel<Kernel>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1);
    config.blockDim = dim3(threads_per_team<Kernel>());
    config.dynamicSmemBytes = shared_bytes;
    int teams = 0;
    FERRY_CUDA(cudaOccupancyMaxPotentialClusterSize(&teams, teams_kernel<Kernel>, &config));
    return teams;
  });
}

// Every team as one cluster; a cluster the device cannot hold is refused
// before launch, as a cooperative launch's teams are.
template <class Kernel>
void cluster_teams(void* stream, int device, int teams, const Kernel& kernel, std::size_t shared_bytes) {
  const int largest = largest_cluster<Kernel>(device, shared_bytes);
  if (teams > largest)
    throw RuntimeFailure("a cluster of " + std::to_string(teams) + " teams does not fit on device " +
                         std::to_string(device) + ", whose largest cluster of this kernel holds " +
                         std::to_string(largest));
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = static_cast<unsigned>(teams);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(teams));
  config.blockDim = dim3(threads_per_team<Kernel>());
  config.dynamicSmemBytes = shared_bytes;
  config.stream = static_cast<cudaStream_t>(stream);
  config.attrs = &cluster;
  config.numAttrs = 1;
  FERRY_CUDA(cudaLaunchKernelEx(&config, teams_kernel<Kernel>, kernel));
}

}  // namespace ferry::cuda
