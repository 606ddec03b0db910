#include "backend/backend.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry {

void require_free_memory(const Backend& backend, int device, std::uint64_t bytes) {
  const DeviceStatus status = backend.device_status(device);
  if (bytes > status.free_bytes)
    throw UsageError(fmt::format("{} is more than device {} has free ({} of {})", format_bytes(bytes), device,
                                 format_capacity(status.free_bytes), format_capacity(status.total_bytes)));
}

}  // namespace ferry
