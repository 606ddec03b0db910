#pragma once
// The CUDA side of ferry::parallel_for (backend/launch.hpp).
#include <algorithm>
#include <cstdint>

#include "backend/cuda/cuda_check.hpp"

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

}  // namespace ferry::cuda
