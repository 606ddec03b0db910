#include "core/results.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

namespace ferry {

Stats Row::stats() const {
  if (!has_samples() && derived) return {};
  return summary ? summary->stats : summarize(seconds);
}

std::uint64_t Row::sample_count() const { return summary ? summary->count : seconds.size(); }

void Row::set_samples(std::vector<double> samples) {
  if (samples.size() <= kept_samples_limit) {
    seconds = std::move(samples);
    summary.reset();
    return;
  }
  summary = SampleSummary{summarize(samples), samples.size()};
  seconds.clear();
}

double Row::value() const {
  if (derived) return *derived;
  const Stats s = stats();
  const double seconds = headline == Headline::best ? s.min : s.median;
  return metric == Metric::rate ? bytes_per_sample / seconds : seconds;
}

std::optional<double> Row::efficiency() const {
  if (!model || *model <= 0) return std::nullopt;
  return metric == Metric::rate ? value() / *model : *model / value();
}

bool WorkloadResult::passed() const {
  return std::none_of(rows.begin(), rows.end(), [](const Row& r) { return r.check == Check::failed; });
}

bool Results::passed() const {
  return std::all_of(workloads.begin(), workloads.end(), [](const WorkloadResult& w) { return w.passed(); });
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace ferry
