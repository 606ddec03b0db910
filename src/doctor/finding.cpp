#include "doctor/finding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "core/units.hpp"

namespace ferry::doctor {

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::ok: return "OK";
    case Verdict::warn: return "WARN";
    case Verdict::fail: return "FAIL";
    case Verdict::not_judged: return "-";
  }
  return "?";
}

std::string_view unit_name(Unit unit) {
  switch (unit) {
    case Unit::none: return "";
    case Unit::bytes_per_second: return "B/s";
    case Unit::seconds: return "s";
  }
  return "?";
}

bool any_fail(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.verdict == Verdict::fail; });
}

std::string gpu_subject(int device) { return fmt::format("GPU {}", device); }

std::optional<SubjectGpus> subject_gpus(const std::string& subject) {
  static const std::regex gpus(R"(GPU (\d{1,6})(?: (->|<->) (\d{1,6}))?)");
  std::smatch m;
  if (!std::regex_match(subject, m, gpus)) return std::nullopt;
  SubjectGpus named{.gpu = std::stoi(m[1])};
  if (m[2].matched) {
    named.peer = std::stoi(m[3]);
    named.between = m[2];
  }
  return named;
}

Finding not_judged(std::string check, std::string subject, std::string why) {
  return {.check = std::move(check),
          .subject = std::move(subject),
          .verdict = Verdict::not_judged,
          .basis = std::move(why)};
}

Finding judge_share(const ShareCheck& c) {
  Finding f{.check = c.check,
            .subject = c.subject,
            .value = c.measured_Bps,
            .model = c.model_Bps,
            .unit = Unit::bytes_per_second};
  f.measured = rate_text(c.measured_Bps);
  f.expected = c.model_name.empty()
                   ? fmt::format(">= {:.0f}% of {}", 100 * c.share, rate_text(c.model_Bps))
                   : fmt::format(">= {:.0f}% of {} ({})", 100 * c.share, c.model_name, rate_text(c.model_Bps));
  f.basis = c.basis;
  f.verdict = c.measured_Bps < c.fail_share * c.model_Bps ? Verdict::fail
              : c.measured_Bps < c.share * c.model_Bps    ? c.below
                                                          : Verdict::ok;
  return f;
}

}  // namespace ferry::doctor
