#pragma once
// Launching a FERRY_HD kernel: kernel(i) for every i in [0, count), in stream
// order. On cuda a grid-stride launch; on the emulator a loop on the stream's
// thread. A source that calls this is compiled as CUDA when the CUDA backend
// is built (ferry_kernel_sources in CMake), so one body serves both.
#include <cstdint>
#include <type_traits>

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

}  // namespace ferry
