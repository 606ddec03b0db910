// `ferry tune stream`: measure every design x chunk x depth, pick the one that
// meets the target with the best other figure.
#include <fmt/format.h>

#include "bench/stream/stream.hpp"
#include "bench/stream/stream_model.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::stream {
namespace {

bool meets(const MeasuredPoint& p, const Target& target) {
  if (target.latency_s) return p.latency.value() <= *target.latency_s;
  return p.throughput.value() >= *target.throughput_Bps;
}

// Better on the figure the target leaves free.
bool better(const MeasuredPoint& a, const MeasuredPoint& b, const Target& target) {
  if (target.latency_s) return a.throughput.value() > b.throughput.value();
  return a.latency.value() < b.latency.value();
}

std::string describe(const MeasuredPoint& p) {
  return fmt::format("{}: median latency {:.2f} us (p99 {:.2f} us), throughput {:.2f} GB/s", point_name(p.point),
                     to_us(p.latency.value()), to_us(p.latency.stats().p99), to_GBps(p.throughput.value()));
}

// What link allows within the latency, each way, and how near the best point that meets it comes.
std::string ceiling_note(const model::DeviceProfile& profile, double latency_s,
                         const std::vector<MeasuredPoint>& measured) {
  const LatencyCeiling sm = sm_ceiling_within(profile, latency_s);
  const LatencyCeiling engine = engine_ceiling_within(profile, latency_s);
  auto describe_ceiling = [](const LatencyCeiling& c, const char* who) {
    if (!c.missing.empty())
      return fmt::format("{}: the profile has no {} (`ferry probe -o` writes them)", who, c.missing);
    return c.Bps > 0 ? fmt::format("{} {:.2f} GB/s ({})", who, to_GBps(c.Bps), c.basis)
                     : fmt::format("{}: link measured nothing that fits", who);
  };
  std::string note = fmt::format("link's ceiling within {:.2f} us, per direction: {}; {}", to_us(latency_s),
                                 describe_ceiling(sm, "SM designs"), describe_ceiling(engine, "copy engines"));
  double best = 0;
  for (const auto& p : measured)
    if (p.latency.check == Check::passed && p.latency.value() <= latency_s) best = std::max(best, p.throughput.value());
  const double ceiling = std::max(sm.Bps, engine.Bps);
  if (ceiling > 0 && best > 0)
    note += fmt::format("; the best point within it reaches {:.0f}% of the higher", 100 * best / ceiling);
  return note;
}

}  // namespace

TuneOutcome tune(Backend& backend, const Machine& machine, const StreamConfig& config,
                 const model::DeviceProfile& profile, const Target& target, const Progress& progress) {
  validate(backend, config);
  TuneOutcome out;
  WorkloadResult& result = out.result;
  result.workload = "stream";
  const std::string goal =
      target.latency_s
          ? fmt::format("median latency <= {:.2f} us, then the most throughput", to_us(*target.latency_s))
          : fmt::format("throughput >= {:.2f} GB/s, then the least latency", to_GBps(*target.throughput_Bps));
  result.config = {
      {"tune", goal},
      {"designs", join(config.designs, ",", [](Design d) { return std::string(to_string(d)); })},
      {"total_bytes", static_cast<std::int64_t>(config.total_bytes)},
      {"chunks", join(config.chunk_bytes, ",", [](std::uint64_t c) { return format_bytes(c); })},
      {"depths", join(config.depths, ",", [](int d) { return std::to_string(d); })},
      {"stages", config.stages},
      {"iterations", config.iterations},
  };
  const std::vector<MeasuredPoint> measured = measure_sweep(backend, machine, config, profile, progress, result);
  if (target.latency_s) result.notes.push_back(ceiling_note(profile, *target.latency_s, measured));
  result.sections.push_back({"choice", "The configuration that meets the target with the best other figure"});
  const MeasuredPoint* best = nullptr;
  for (const auto& p : measured)
    if (p.latency.check == Check::passed && meets(p, target) && (!best || better(p, *best, target))) best = &p;

  if (best) {
    out.met = true;
    Row choice = best->latency;
    choice.section = "choice";
    choice.params.push_back({"throughput GB/s", to_GBps(best->throughput.value())});
    result.rows.push_back(std::move(choice));
    result.notes.push_back(fmt::format("best for {}: {}", goal, describe(*best)));
    result.notes.push_back(fmt::format("run it: ferry run stream --design {} --chunks {} --depth {} --total {}",
                                       to_string(best->point.design), best->point.chunk_bytes, best->point.depth,
                                       config.total_bytes));
  } else {
    // A point whose output was wrong is no configuration to offer, even as the nearest miss.
    const MeasuredPoint* closest = nullptr;
    for (const auto& p : measured)
      if (p.latency.check == Check::passed &&
          (!closest || (target.latency_s ? p.latency.value() < closest->latency.value()
                                         : p.throughput.value() > closest->throughput.value())))
        closest = &p;
    result.notes.push_back(closest ? fmt::format("no configuration met {}; closest: {}", goal, describe(*closest))
                           : measured.empty() ? fmt::format("no configuration met {}: nothing could be measured", goal)
                                              : fmt::format("no configuration met {}: none passed its check", goal));
  }
  return out;
}

}  // namespace ferry::stream
