#include "doctor/measure/nccl.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bench/common/exchange_areas.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"
#include "doctor/faults.hpp"
#include "transport/transport.hpp"
#include "transport/world.hpp"

namespace ferry::doctor {
namespace {

using transport::ExchangePlan;
using transport::Kind;
using transport::Pattern;

// One transport's b(L) on the pair, as beff measures a size of the ring: a
// warm-up, then the repetitions, each on poisoned receive areas and checked
// word for word against what the sender wrote.
PairTransport measure_transport_on_pair(Kind kind, Backend& backend, World& solo, ExchangeAreas& areas,
                                        const NcclCheckConfig& config, bool corrupt) {
  PairTransport out;
  out.skipped = transport::unavailable_reason(kind, backend, solo, areas.group());
  if (!out.skipped.empty()) return out;
  try {
    const auto moving = transport::open(kind, backend, solo, areas.group(), transport::Options{});
    out.how = moving->how(config.bytes);
    const auto plan_of = [&](std::int64_t exchanges) {
      return transport::make_plan(Pattern::ring, 2, config.bytes, exchanges, areas.area_bytes());
    };
    const ExchangePlan plan = plan_of(config.exchanges);
    areas.fill_send(plan);    // the warm-up's slots too: they are the plan's first
    moving->run(plan_of(2));  // a first exchange may set up connections or load code
    std::vector<double> rates;
    for (int rep = 0; rep < config.repetitions; ++rep) {
      areas.poison_receive(plan);
      const std::vector<double> seconds = moving->run(plan);
      if (rep == 0 && corrupt) areas.corrupt_one_byte(plan);
      for (std::size_t k = 0; k < areas.group().local.size(); ++k)
        out.wrong_words += wrong_reported("beff.message", areas.wrong_words(plan, k));
      const double slowest = std::max(*std::max_element(seconds.begin(), seconds.end()), 1e-12);
      rates.push_back(2.0 * static_cast<double>(config.bytes) * static_cast<double>(config.exchanges) / slowest);
    }
    out.rate_Bps = summarize(rates).median;
  } catch (const RuntimeFailure& error) {
    out.failed = error.what();
  }
  return out;
}

}  // namespace

NcclCheckConfig NcclCheckConfig::for_backend(const Capabilities& capabilities) {
  NcclCheckConfig c;
  // The emulator's rates are not judged, its messages are: each exchange's are
  // checked, both ways, at 2 MiB, in about 0.03 s a pair.
  if (!capabilities.gpu_timings) {
    c.exchanges = 2;
    c.repetitions = 1;
  }
  return c;
}

std::vector<NcclPair> measure_nccl_pairs(Backend& backend, const std::vector<int>& devices,
                                         const NcclCheckConfig& config, const Progress& progress) {
  std::vector<NcclPair> pairs;
  for (std::size_t a = 0; a < devices.size(); ++a)
    for (std::size_t b = a + 1; b < devices.size(); ++b)
      pairs.push_back({.first = devices[a],
                       .second = devices[b],
                       .gpu_timings = backend.capabilities().gpu_timings,
                       .left_out = pairs.size() >= config.most_pairs});
  progress.expect(2 * std::min(pairs.size(), config.most_pairs));
  // One process drives both devices of a pair, as p2p-ce must: a world of
  // one, so that no collective waits for ranks that are not measuring.
  World solo;
  // Every exchange keeps its slot, the warm-up's 2 included, so every message is checked.
  const std::uint64_t area =
      static_cast<std::uint64_t>(std::max<std::int64_t>(config.exchanges, 2)) * transport::slot_pitch(config.bytes);
  for (NcclPair& p : pairs) {
    if (p.left_out) continue;
    p.how = fmt::format("b({}) of the ring of 2 (both ways at once), median of {} x {} exchanges",
                        format_bytes(config.bytes), config.repetitions, config.exchanges);
    ExchangeAreas areas(backend, {p.first, p.second}, 0, 2, area, config.bytes);
    const bool corrupt = std::any_of(config.corrupt.begin(), config.corrupt.end(),
                                     [&](const auto& c) { return names_pair(c, p.first, p.second); });
    for (const auto& [kind, rate] : {std::pair{Kind::p2p_ce, &p.p2p_ce}, std::pair{Kind::nccl, &p.nccl}}) {
      progress.step(fmt::format("pair {} <-> {}: {}, ring of 2, {} each way", p.first, p.second, to_string(kind),
                                format_bytes(config.bytes)));
      *rate = measure_transport_on_pair(kind, backend, solo, areas, config, corrupt);
    }
  }
  return pairs;
}

std::vector<NcclPair> nccl_pass(Backend& backend, const std::vector<int>& devices, std::string_view fault,
                                const Progress& progress) {
  const NcclFaults faults = nccl_faults(fault);
  NcclCheckConfig config = NcclCheckConfig::for_backend(backend.capabilities());
  config.corrupt = faults.corrupt;
  std::vector<NcclPair> pairs = measure_nccl_pairs(backend, devices, config, progress);
  for (const auto& [first, second] : faults.slow) provoke_slow_nccl(pairs, first, second);
  return pairs;
}

}  // namespace ferry::doctor
