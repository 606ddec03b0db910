#pragma once
#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace ferry {

// "auto" (cuda when a GPU answers, else emu), "cuda" or "emu". Throws
// UsageError when the name is unknown or the asked-for backend is unavailable.
std::unique_ptr<Backend> make_backend(const std::string& name);

// Why the CUDA backend cannot run here, or "" when it can.
std::string cuda_unavailable_reason();

}  // namespace ferry
