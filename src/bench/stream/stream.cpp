// `ferry run stream`: every design over the chunk sweep, the seed's summary
// table, and the two comparisons the designs exist to make.
#include "bench/stream/stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "bench/stream/stream_run.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::stream {
namespace {

Params config_params(const StreamConfig& config) {
  return {
      {"device", config.device},
      {"designs", join(config.designs, ",", [](Design d) { return std::string(to_string(d)); })},
      {"total_bytes", static_cast<std::int64_t>(config.total_bytes)},
      {"chunks", join(config.chunk_bytes, ",", [](std::uint64_t c) { return format_bytes(c); })},
      {"depths", join(config.depths, ",", [](int d) { return std::to_string(d); })},
      {"stages", config.stages},
      {"flops_per_byte", 0.5 * config.rounds_per_stage()},
      {"iterations", config.iterations},
      {"warmup_chunks", static_cast<std::int64_t>(config.warmup_chunks)},
  };
}

const MeasuredPoint* find_offload(const std::vector<MeasuredPoint>& points) {
  const auto it = std::find_if(points.begin(), points.end(),
                               [](const MeasuredPoint& p) { return p.point.design == Design::offload; });
  return it == points.end() ? nullptr : &*it;
}

double best_throughput(const std::vector<MeasuredPoint>& points) {
  double best = 0;
  for (const auto& p : points) best = std::max(best, p.throughput.value());
  return best;
}

// The design's point with the lowest median latency that keeps 90% of the best
// throughput of any design; without one, its highest-throughput point.
const MeasuredPoint* representative(const std::vector<MeasuredPoint>& points, Design design, double best_Bps) {
  const MeasuredPoint* chosen = nullptr;
  for (const auto& p : points) {
    if (p.point.design != design || p.throughput.value() < 0.9 * best_Bps) continue;
    if (!chosen || p.latency.value() < chosen->latency.value()) chosen = &p;
  }
  if (chosen) return chosen;
  for (const auto& p : points)
    if (p.point.design == design && (!chosen || p.throughput.value() > chosen->throughput.value())) chosen = &p;
  return chosen;
}

void add_summary(WorkloadResult& result, const std::vector<MeasuredPoint>& points, const StreamConfig& config) {
  const double best_Bps = best_throughput(points);
  const MeasuredPoint* offload = find_offload(points);
  for (Design design : config.designs) {
    const MeasuredPoint* p = representative(points, design, best_Bps);
    if (!p) continue;
    Row row = p->latency;
    row.section = "summary";
    row.model.reset();
    row.params.push_back({"throughput GB/s", to_GBps(p->throughput.value())});
    row.params.push_back({"% of best throughput", 100 * p->throughput.value() / best_Bps});
    if (offload) {
      const double lower = offload->latency.value() / p->latency.value();
      row.params.push_back({"latency vs offload", lower >= 1 ? fmt::format("{:.0f}x lower", lower)
                                                             : fmt::format("{:.1f}x higher", 1 / lower)});
    }
    result.rows.push_back(std::move(row));
  }

  if (offload) {
    const MeasuredPoint* lowest = nullptr;
    const MeasuredPoint* fastest = nullptr;
    for (const auto& p : points) {
      if (!fastest || p.throughput.value() > fastest->throughput.value()) fastest = &p;
      if (p.throughput.value() >= 0.9 * best_Bps && (!lowest || p.latency.value() < lowest->latency.value()))
        lowest = &p;
    }
    result.notes.push_back(fmt::format(
        "lowest latency at >= 90% of the best throughput: {}: median {:.2f} us, {:.0f}x lower than offload's {:.2f} ms, "
        "at {:.1f}% of the best throughput ({}: {:.2f} GB/s)",
        point_name(lowest->point), to_us(lowest->latency.value()), offload->latency.value() / lowest->latency.value(),
        offload->latency.value() * 1e3, 100 * lowest->throughput.value() / best_Bps, point_name(fastest->point),
        to_GBps(best_Bps)));
  }
}

// The smallest chunk's lowest latency against the flag round trip and, at
// 4 KiB, against link's chunk round trip: a resident kernel's least cost for
// a chunk, so a design's ratio to it is what its own work adds.
void add_flag_comparison(WorkloadResult& result, const std::vector<MeasuredPoint>& points,
                         const model::DeviceProfile& profile, const std::string& profile_origin) {
  const double flag_s = profile.flag_round_trip_s;
  if (!(flag_s > 0)) return;
  // The smallest chunk the sweep has, at its smallest depth, by the design with the lowest latency there.
  const MeasuredPoint* chosen = nullptr;
  auto before = [](const MeasuredPoint& a, const MeasuredPoint& b) {
    if (a.point.chunk_bytes != b.point.chunk_bytes) return a.point.chunk_bytes < b.point.chunk_bytes;
    if (a.point.depth != b.point.depth) return a.point.depth < b.point.depth;
    return a.latency.value() < b.latency.value();
  };
  for (const auto& p : points)
    if (p.point.design != Design::offload && (!chosen || before(p, *chosen))) chosen = &p;
  if (!chosen) return;
  const double latency_s = chosen->latency.value();
  std::string chunk_trip;
  if (chosen->point.chunk_bytes == model::chunk_echo_bytes && profile.chunk_echo_s > 0)
    chunk_trip = fmt::format(" and {:.2f}x the 4 KiB chunk round trip ({:.2f} us)", latency_s / profile.chunk_echo_s,
                             to_us(profile.chunk_echo_s));
  result.notes.push_back(fmt::format(
      "lowest latency at the smallest chunk: {}: median {:.2f} us = {:.2f}x the flag round trip ({:.2f} us){}, {}",
      point_name(chosen->point), to_us(latency_s), latency_s / flag_s, to_us(flag_s), chunk_trip, profile_origin));
}

}  // namespace

WorkloadResult run(Backend& backend, const Machine& machine, const StreamConfig& config,
                   const model::DeviceProfile& profile, const Progress& progress) {
  validate(backend, config);
  WorkloadResult result;
  result.workload = "stream";
  result.config = config_params(config);
  std::vector<MeasuredPoint> measured = measure_sweep(backend, machine, config, profile, progress, result);
  result.sections.push_back({"summary",
                             "Designs side by side (the seed's table): each at its lowest-latency point that keeps "
                             ">= 90% of the best throughput, else at its highest throughput"});
  // A point whose output arrived wrong is no answer: the summary and its notes choose among the others.
  std::vector<MeasuredPoint> intact;
  std::copy_if(measured.begin(), measured.end(), std::back_inserter(intact), [](const MeasuredPoint& p) {
    return p.latency.check != Check::failed && p.throughput.check != Check::failed;
  });
  if (intact.size() < measured.size())
    result.notes.push_back(fmt::format("{} of {} points FAILED their check: the summary and these notes leave them out",
                                       measured.size() - intact.size(), measured.size()));
  if (!intact.empty()) add_summary(result, intact, config);
  add_flag_comparison(result, intact, profile, config.profile_origin);
  if (!backend.capabilities().gpu_timings)
    result.notes.push_back("emulator: every word is checked as on a GPU, but the timings are CPU timings");
  return result;
}

}  // namespace ferry::stream
