// Stream memory operations (cuStreamWriteValue64, cuStreamWaitValue64): the order between processes that
// events cannot carry. The runtime API has no such calls, so the driver's are looked up once through the
// runtime, and ferry needs no link to libcuda.
#include <cuda.h>
#include <fmt/format.h>

#include "backend/cuda/cuda_stream.hpp"
#include "core/error.hpp"

namespace ferry::cuda {
namespace {

using ValueCall = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);

ValueCall driver_call(const char* name) {
  void* call = nullptr;
  cudaDriverEntryPointQueryResult found{};
  // 12000: the calls' signatures as of CUDA 12, the oldest driver ferry runs on.
  FERRY_CUDA(cudaGetDriverEntryPointByVersion(name, &call, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || call == nullptr)
    throw RuntimeFailure(fmt::format("the CUDA driver has no {}: stream memory operations are not to be had", name));
  return reinterpret_cast<ValueCall>(call);
}

void check_driver(CUresult result, const char* call, int device) {
  if (result != CUDA_SUCCESS)
    throw RuntimeFailure(
        fmt::format("CUDA driver error {} in {} on device {}", static_cast<int>(result), call, device));
}

}  // namespace

void CudaStream::write_flag(std::uint64_t* flag, std::uint64_t value) {
  static const ValueCall write = driver_call("cuStreamWriteValue64");
  use_device(device_);
  // The default flags keep the memory barrier: the copies before the flag are visible before it is.
  check_driver(write(static_cast<CUstream>(stream_), reinterpret_cast<CUdeviceptr>(flag), value,
                     CU_STREAM_WRITE_VALUE_DEFAULT),
               "cuStreamWriteValue64", device_);
}

void CudaStream::wait_flag(const std::uint64_t* flag, std::uint64_t value, double /*timeout_s*/) {
  static const ValueCall wait = driver_call("cuStreamWaitValue64");
  use_device(device_);
  check_driver(wait(static_cast<CUstream>(stream_), reinterpret_cast<CUdeviceptr>(flag), value,
                    CU_STREAM_WAIT_VALUE_GEQ),
               "cuStreamWaitValue64", device_);
}

}  // namespace ferry::cuda
