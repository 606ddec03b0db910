#pragma once
// The CUDA side of ferry::parallel_for (backend/launch.hpp).
#include <algorithm>
#include <cstdint>

#include <string>

#include "backend/cuda/cuda_check.hpp"
#include "core/error.hpp"

namespace ferry::cuda {

template <class Kernel>
__global__ void parallel_for_kernel(std::int64_t count, Kernel kernel) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    kernel(i);
  }
}

template <class Kernel>
void parallel_for(void* stream, int device, std::int64_t count, const Kernel& kernel) {
  constexpr std::int64_t threads = 256;
  // Enough blocks to fill any Hopper many times over; the grid-stride loop does the rest.
  constexpr std::int64_t most_blocks = 16384;
  const auto blocks = static_cast<unsigned>(std::min((count + threads - 1) / threads, most_blocks));
  const unsigned block_threads = static_cast<unsigned>(std::min(count, threads));
  use_device(device);
  parallel_for_kernel<<<blocks, block_threads, 0, static_cast<cudaStream_t>(stream)>>>(count, kernel);
  FERRY_CUDA(cudaGetLastError());
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
};

constexpr int team_threads = 256;

template <class Kernel>
__global__ void __launch_bounds__(team_threads) teams_kernel(Kernel kernel) {
  DeviceTeam team;
  kernel(team);
}

template <class Kernel>
void parallel_teams(void* stream, int device, int teams, const Kernel& kernel, bool all_at_once) {
  use_device(device);
  if (!all_at_once) {
    teams_kernel<<<teams, team_threads, 0, static_cast<cudaStream_t>(stream)>>>(kernel);
    FERRY_CUDA(cudaGetLastError());
    return;
  }
  int per_multiprocessor = 0, multiprocessors = 0;
  FERRY_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, teams_kernel<Kernel>, team_threads, 0));
  FERRY_CUDA(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  if (teams > per_multiprocessor * multiprocessors)
    throw RuntimeFailure("a persistent kernel of " + std::to_string(teams) + " teams does not fit on device " +
                         std::to_string(device) + ", which holds " + std::to_string(per_multiprocessor * multiprocessors) +
                         " at once");
  Kernel argument = kernel;
  void* arguments[] = {&argument};
  FERRY_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(teams_kernel<Kernel>), dim3(teams), dim3(team_threads),
                                         arguments, 0, static_cast<cudaStream_t>(stream)));
}

}  // namespace ferry::cuda
