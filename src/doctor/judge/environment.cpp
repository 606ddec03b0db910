#include "doctor/judge/environment.hpp"

#include "core/text.hpp"

namespace ferry::doctor {

void judge_environment(const Inputs& in, std::vector<Finding>& out) {
  if (in.environment.empty()) {
    out.push_back({.check = "environment",
                   .subject = "host",
                   .verdict = Verdict::ok,
                   .measured = "none set",
                   .expected = "none set",
                   .basis = join(path_variables(), ", ", [](const auto& v) { return v.first; })});
    return;
  }
  for (const auto& [name, value] : in.environment) {
    std::string what;
    for (const auto& [known, effect] : path_variables())
      if (known == name) what = effect;
    Finding f{.check = "environment", .subject = "host", .verdict = Verdict::warn};
    f.measured = name + "=" + value;
    f.expected = "unset";
    f.basis = "a variable that changes how data moves";
    f.cause = what;
    f.action = "unset " + name + " unless this run is meant to measure its effect";
    if (name == "CUDA_VISIBLE_DEVICES") {
      // Only a reordering or a subset is worth a word: the numbers ferry prints are then not nvidia-smi's.
      f.cause = "device numbers here are positions in this list, not nvidia-smi's";
      f.action = "name devices by position in CUDA_VISIBLE_DEVICES when reading ferry's output";
    }
    out.push_back(std::move(f));
  }
}

}  // namespace ferry::doctor
