// libFuzzer target: a machine profile (`--profile FILE`) is a file a user
// hands ferry. Reading it may return a profile or throw ferry's UsageError
// naming the file; anything else is a bug.
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "model/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const ferry::model::MachineProfile profile =
        ferry::model::profile_from_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    for (const auto& device : profile.devices) (void)profile.device(device.device);
  } catch (const ferry::UsageError&) {
  }
  return 0;
}
