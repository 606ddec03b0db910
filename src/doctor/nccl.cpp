#include "doctor/nccl.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bench/common/exchange_areas.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "doctor/thresholds.hpp"
#include "transport/transport.hpp"
#include "transport/world.hpp"

namespace ferry::doctor {

namespace {

using transport::ExchangePlan;
using transport::Kind;
using transport::Pattern;

constexpr std::string_view nccl_check = "nccl vs p2p-ce at 2 MiB";

// Names apart from the other doctor files' helpers: a unity build compiles them in one unit.
std::string nccl_pair_subject(const NcclPair& p) { return fmt::format("GPU {} <-> {}", p.first, p.second); }

bool same_pair(const std::pair<int, int>& pair, int first, int second) {
  return (pair.first == first && pair.second == second) || (pair.first == second && pair.second == first);
}

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

std::pair<int, int> parse_pair(std::string_view value, std::string_view condition) {
  const std::size_t dash = value.find('-');
  try {
    if (dash != std::string_view::npos) {
      std::size_t used_first = 0, used_second = 0;
      const std::string first(value.substr(0, dash)), second(value.substr(dash + 1));
      const int a = std::stoi(first, &used_first), b = std::stoi(second, &used_second);
      if (used_first == first.size() && used_second == second.size() && a >= 0 && b >= 0 && a != b) return {a, b};
    }
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("FERRY_FAULT_DOCTOR: '{}' wants two different device numbers, e.g. {}=0-1", condition,
                               condition.substr(0, condition.find('='))));
}

// The NCCL variables set, as NAME=VALUE, each with what it does to NCCL's path.
std::vector<std::pair<std::string, std::string>> nccl_variables(
    const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<std::pair<std::string, std::string>> set;
  for (const auto& [name, value] : environment) {
    if (name.rfind("NCCL_", 0) != 0) continue;
    std::string effect;
    for (const auto& [known, what] : path_variables())
      if (known == name) effect = what;
    if (name == "NCCL_P2P_DISABLE")
      effect = value == "0" ? "peer access allowed"
                            : "NCCL then goes through host memory: each message is copied into host memory and "
                              "out again, instead of over NVLink or PCIe peer access";
    set.emplace_back(name + "=" + value, effect);
  }
  return set;
}

Finding judge_pair(const NcclPair& p, const std::vector<std::pair<std::string, std::string>>& environment) {
  Finding f{.check = std::string(nccl_check), .subject = nccl_pair_subject(p)};
  const std::string devices = fmt::format("{},{}", p.first, p.second);
  const std::uint64_t wrong = p.p2p_ce.wrong_words + p.nccl.wrong_words;
  if (wrong > 0) {
    f.verdict = Verdict::fail;
    f.measured = fmt::format("{} wrong word{}", wrong, wrong == 1 ? "" : "s");
    f.expected = "every message intact";
    f.basis = p.how;
    std::vector<std::string> where;
    for (const auto& [name, t] : {std::pair{"p2p-ce", &p.p2p_ce}, std::pair{"nccl", &p.nccl}})
      if (t->wrong_words > 0) where.push_back(fmt::format("{} {}", name, t->wrong_words));
    f.cause = fmt::format(
        "messages between GPU {} and {} arrived other than their sender wrote them (wrong words: {}); each is "
        "checked word for word on arrival",
        p.first, p.second, join(where, ", ", [](const std::string& s) { return s; }));
    f.action = fmt::format("run `ferry run beff --devices {} --transport p2p-ce,nccl` to see which sizes arrive "
                           "wrong, and look for memory errors (`nvidia-smi -q -d ECC,ROW_REMAPPER`) and Xid errors "
                           "(`dmesg | grep -i xid`)",
                           devices);
    return f;
  }
  for (const auto& [name, t] : {std::pair{"nccl", &p.nccl}, std::pair{"p2p-ce", &p.p2p_ce}})
    if (!t->failed.empty()) {
      f.verdict = Verdict::warn;
      f.measured = "failed";
      f.expected = "both transports run";
      f.basis = p.how;
      f.cause = fmt::format("{} failed on the pair: {}", name, t->failed);
      f.action = fmt::format("run `NCCL_DEBUG=WARN ferry run beff --devices {} --transport {}` for the error in full",
                             devices, name);
      return f;
    }
  std::vector<std::string> skipped;
  for (const auto& [name, t] : {std::pair{"p2p-ce", &p.p2p_ce}, std::pair{"nccl", &p.nccl}})
    if (!t->skipped.empty()) skipped.push_back(fmt::format("{} did not run: {}", name, t->skipped));
  if (!skipped.empty()) {
    f.basis = join(skipped, "; ", [](const std::string& s) { return s; });
    return f;
  }
  if (!p.gpu_timings) {
    f.basis = "the emulator's timings are CPU timings: doctor judges its facts and checks, not its speed (every "
              "message arrived intact)";
    return f;
  }

  const auto in_force = nccl_variables(environment);
  const std::string named = in_force.empty() ? "none set" : join(in_force, ", ", [](const auto& v) { return v.first; });
  const double share = p.nccl.rate_Bps / p.p2p_ce.rate_Bps;
  f = judge_share({.check = f.check,
                   .subject = f.subject,
                   .measured_Bps = p.nccl.rate_Bps,
                   .model_Bps = p.p2p_ce.rate_Bps,
                   .share = nccl_vs_p2p_ce,
                   .below = Verdict::warn,
                   .basis = fmt::format("p2p-ce on the same pair, {}; NCCL variables: {}", p.how, named)});
  f.measured = fmt::format("{} ({:.2f}x)", rate_text(p.nccl.rate_Bps), share);
  if (f.verdict == Verdict::ok) return f;
  f.cause = fmt::format("nccl moved the ring's messages at {}, p2p-ce at {} on the same pair: {:.1f} / {:.1f} = "
                        "{:.2f}x, below {:.2f}x (a healthy 2 x H200 gave 0.60x); ",
                        rate_text(p.nccl.rate_Bps), rate_text(p.p2p_ce.rate_Bps), to_GBps(p.nccl.rate_Bps),
                        to_GBps(p.p2p_ce.rate_Bps), share, nccl_vs_p2p_ce);
  if (in_force.empty()) {
    f.cause += "no NCCL variable that changes its path is set in the environment (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, "
               "NCCL_SHM_DISABLE, NCCL_PROTO, NCCL_ALGO): NCCL chose a slower path itself, or one came from "
               "/etc/nccl.conf or ~/.nccl.conf";
    f.action = fmt::format("run `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P ferry run beff --devices {} --transport "
                           "nccl` and read which path NCCL connects through (P2P/IPC, P2P/CUMEM or SHM); `nvidia-smi "
                           "topo -m` shows how the GPUs are joined",
                           devices);
  } else {
    f.cause += "NCCL variables in force: " +
               join(in_force, "; ", [](const auto& v) { return v.first + (v.second.empty() ? "" : ": " + v.second); });
    f.action = fmt::format("unset {} unless this run is meant to measure its effect, and run doctor again; "
                           "NCCL_DEBUG=INFO shows the path NCCL takes (P2P/IPC, P2P/CUMEM or SHM)",
                           join(in_force, ", ", [](const auto& v) { return v.first.substr(0, v.first.find('=')); }));
  }
  return f;
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
                                     [&](const auto& c) { return same_pair(c, p.first, p.second); });
    for (const auto& [kind, rate] : {std::pair{Kind::p2p_ce, &p.p2p_ce}, std::pair{Kind::nccl, &p.nccl}}) {
      progress.step(fmt::format("pair {} <-> {}: {}, ring of 2, {} each way", p.first, p.second, to_string(kind),
                                format_bytes(config.bytes)));
      *rate = measure_transport_on_pair(kind, backend, solo, areas, config, corrupt);
    }
  }
  return pairs;
}

std::vector<Finding> judge_nccl(const std::vector<NcclPair>& pairs,
                                const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<Finding> out;
  std::vector<std::string> left_out;
  for (const NcclPair& p : pairs) {
    if (p.left_out) left_out.push_back(nccl_pair_subject(p));
    else out.push_back(judge_pair(p, environment));
  }
  if (!left_out.empty())
    out.push_back({.check = std::string(nccl_check),
                   .subject = fmt::format("{} more pairs", left_out.size()),
                   .verdict = Verdict::not_judged,
                   .basis = fmt::format("doctor measures the first {} pairs of {}, to keep its pass short; not "
                                        "measured: {} (`ferry run beff --devices A,B --transport p2p-ce,nccl` "
                                        "measures one)",
                                        pairs.size() - left_out.size(), pairs.size(),
                                        join(left_out, ", ", [](const std::string& s) { return s; }))});
  return out;
}

NcclFaults nccl_faults(std::string_view hook) {
  NcclFaults faults;
  for (std::string_view condition : split(hook, ',')) {
    const std::size_t equals = condition.find('=');
    const std::string_view name = condition.substr(0, equals);
    const std::string_view value = equals == std::string_view::npos ? "" : condition.substr(equals + 1);
    if (name == "nccl-slow") faults.slow.push_back(parse_pair(value, condition));
    else if (name == "nccl-corrupt") faults.corrupt.push_back(parse_pair(value, condition));
  }
  return faults;
}

void provoke_slow_nccl(std::vector<NcclPair>& pairs, int first, int second) {
  for (NcclPair& p : pairs) {
    if (p.left_out || !same_pair({first, second}, p.first, p.second)) continue;
    p.gpu_timings = true;
    p.p2p_ce = {.how = "FERRY_FAULT_DOCTOR", .rate_Bps = 337.9e9, .wrong_words = p.p2p_ce.wrong_words};
    p.nccl = {.how = "FERRY_FAULT_DOCTOR", .rate_Bps = 0.13 * 337.9e9, .wrong_words = p.nccl.wrong_words};
  }
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
