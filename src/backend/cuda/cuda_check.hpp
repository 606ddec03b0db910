#pragma once
// Every CUDA runtime call in ferry goes through FERRY_CUDA: a failure becomes a
// RuntimeFailure naming the call, the error and file:line.
#include <cuda_runtime_api.h>

namespace ferry::cuda {

void throw_cuda_error(cudaError_t error, const char* call, const char* file, int line);

inline void check(cudaError_t error, const char* call, const char* file, int line) {
  if (error != cudaSuccess) throw_cuda_error(error, call, file, line);
}

// Makes `device` current on this thread; cheap when it already is.
void use_device(int device);

}  // namespace ferry::cuda

#define FERRY_CUDA(call) ::ferry::cuda::check((call), #call, __FILE__, __LINE__)
