#include "doctor/judge/pass_time.hpp"

#include <fmt/format.h>

namespace ferry::doctor {

Finding judge_pass_time(double took_s, double budget_s) {
  Finding f{.check = "pass time", .subject = "host", .value = took_s, .model = budget_s, .unit = Unit::seconds};
  f.measured = fmt::format("{:.1f} s", took_s);
  f.expected = fmt::format("<= {:.0f} s", budget_s);
  f.basis = "--budget";
  f.verdict = took_s <= budget_s ? Verdict::ok : Verdict::warn;
  if (f.verdict == Verdict::warn) {
    f.cause = "the pass took longer than its budget: a slow or busy machine, or many GPUs";
    f.action = "select fewer GPUs (--devices) or raise --budget";
  }
  return f;
}

}  // namespace ferry::doctor
