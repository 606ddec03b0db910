// libFuzzer target: a file a user hands ferry with --profile: a machine profile
// (ferry run's models) or a results file or profile (ferry model beff). Reading
// it may return what it holds or throw ferry's UsageError naming the file;
// anything else is a bug.
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "model/beff_model.hpp"
#include "model/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const ferry::model::MachineProfile profile = ferry::model::profile_from_json(text, "fuzz.json");
    for (const auto& device : profile.devices) (void)profile.device(device.device);
  } catch (const ferry::UsageError&) {
  }
  try {
    (void)ferry::model::transport_terms_from_json(text, "fuzz.json");
  } catch (const ferry::UsageError&) {
  }
  return 0;
}
