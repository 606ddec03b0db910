#pragma once
#include <memory>
#include <string>

#include "backend/backend.hpp"

namespace ferry::cuda {

// Why no GPU can be used here ("" when one can).
std::string unavailable_reason();

std::unique_ptr<Backend> make_cuda_backend();

}  // namespace ferry::cuda
