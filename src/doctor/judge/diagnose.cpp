#include "doctor/judge/diagnose.hpp"

#include <fmt/format.h>

#include "doctor/judge/environment.hpp"
#include "doctor/judge/gpu_rates.hpp"
#include "doctor/judge/gpu_state.hpp"
#include "doctor/judge/latency.hpp"
#include "doctor/judge/links.hpp"
#include "doctor/judge/peer_rates.hpp"
#include "doctor/judge/placement.hpp"

namespace ferry::doctor {
namespace {

Finding verification(const Inputs& in) {
  Finding f{.check = "verification", .subject = "host"};
  f.measured = fmt::format("{} checked rows {}", in.checked_rows, in.verification_passed ? "intact" : "FAILED");
  f.expected = "every byte as sent";
  f.basis = "link's checks of every copy, echo and chain";
  f.verdict = in.verification_passed ? Verdict::ok : Verdict::fail;
  if (!in.verification_passed) {
    f.cause = "data arrived wrong: a fault in the GPU, its memory or the link";
    f.action = "`ferry run link` names the rows; run it again, then `nvidia-smi -q -d ECC,ROW_REMAPPER`";
  }
  return f;
}

}  // namespace

std::vector<Finding> diagnose(const Inputs& in) {
  std::vector<Finding> out = {verification(in)};
  judge_links(in, out);
  judge_placement(in, out);
  judge_gpu_state(in, out);
  judge_environment(in, out);
  if (!in.figures.gpu_timings) {
    out.push_back(
        not_judged("figures", "host",
                   "the emulator's timings are CPU timings: doctor judges its facts and checks, not its speed"));
    return out;
  }
  judge_gpu_rates(in, out);
  judge_peer_rates(in, out);
  for (Finding& f : judge_latencies(in)) out.push_back(std::move(f));
  return out;
}

}  // namespace ferry::doctor
