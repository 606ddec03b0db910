#include "backend/select.hpp"

#include <fmt/format.h>

#include "backend/emu/emu_backend.hpp"
#include "core/error.hpp"
#if FERRY_WITH_CUDA
#include "backend/cuda/cuda_backend.hpp"
#endif

namespace ferry {

std::string cuda_unavailable_reason() {
#if FERRY_WITH_CUDA
  return cuda::unavailable_reason();
#else
  return "this ferry was built without the CUDA backend (FERRY_CUDA=OFF or no nvcc)";
#endif
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  if (name == "emu") return std::make_unique<emu::EmuBackend>();
  if (name == "cuda" || name == "auto") {
    const std::string why = cuda_unavailable_reason();
#if FERRY_WITH_CUDA
    if (why.empty()) return cuda::make_cuda_backend();
#endif
    if (name == "auto") return std::make_unique<emu::EmuBackend>();
    throw UsageError(fmt::format("the cuda backend is not available: {}", why));
  }
  throw UsageError(fmt::format("unknown backend '{}': choose auto, cuda or emu", name));
}

}  // namespace ferry
