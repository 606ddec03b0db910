#include "doctor/judge/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "core/stats.hpp"
#include "core/units.hpp"
#include "doctor/thresholds.hpp"

namespace ferry::doctor {
namespace {

struct Figure {
  const char* check;
  double (*of)(const RankReport&);
};
constexpr Figure gpu_figures[] = {{"fleet pinned h2d", [](const RankReport& r) { return r.h2d_Bps; }},
                                  {"fleet pinned d2h", [](const RankReport& r) { return r.d2h_Bps; }},
                                  {"fleet both ways", [](const RankReport& r) { return r.both_ways_Bps; }},
                                  {"fleet device copy", [](const RankReport& r) { return r.device_copy_Bps; }}};
// The emulator's four figures of one rank vary apart from each other between
// turns; their geometric mean varies far less (docs/doctor.md).
constexpr Figure emulator_figure = {"fleet figures", [](const RankReport& r) {
                                      return std::sqrt(
                                          std::sqrt(r.h2d_Bps * r.d2h_Bps * r.both_ways_Bps * r.device_copy_Bps));
                                    }};

// One figure per GPU model: every rank below its share of the fleet's median
// named, or one OK row giving the lowest.
void judge_figure(const Figure& figure, double share, const std::string& model,
                  const std::vector<const RankReport*>& ranks, std::vector<Finding>& out) {
  std::vector<const RankReport*> measured;
  for (const RankReport* r : ranks)
    if (figure.of(*r) > 0) measured.push_back(r);
  const std::string like = fmt::format("{} x {}", measured.size(), model);
  if (measured.size() < fewest_like) {
    out.push_back(not_judged(figure.check, like,
                             fmt::format("a median of fewer than {} like GPUs says nothing about which one is slow",
                                         fewest_like)));
    return;
  }
  std::vector<double> values;
  for (const RankReport* r : measured) values.push_back(figure.of(*r));
  const double median = summarize(values).median;
  const std::string basis = fmt::format("the median of the fleet's {}", like);
  bool named = false;
  for (const RankReport* r : measured) {
    Finding f = judge_share({.check = figure.check,
                             .subject = rank_name(*r),
                             .measured_Bps = figure.of(*r),
                             .model_Bps = median,
                             .share = share,
                             .below = Verdict::fail,
                             .basis = basis});
    if (f.verdict == Verdict::ok) continue;
    named = true;
    f.cause = fmt::format("{:.0f}% of the fleet's like GPUs: this GPU's link, placement or load differs from "
                          "theirs (its own rows below say which)",
                          100 * figure.of(*r) / median);
    f.action = "see this rank's pcie link, numa placement and other processes rows; run `ferry doctor` on its "
               "host alone";
    out.push_back(std::move(f));
  }
  if (named) return;
  const RankReport* lowest = *std::min_element(measured.begin(), measured.end(),
                                               [&](auto* a, auto* b) { return figure.of(*a) < figure.of(*b); });
  Finding f = judge_share({.check = figure.check,
                           .subject = like,
                           .measured_Bps = figure.of(*lowest),
                           .model_Bps = median,
                           .share = share,
                           .below = Verdict::fail,
                           .basis = basis});
  f.measured = fmt::format("lowest {} ({})", rate_text(figure.of(*lowest)), rank_name(*lowest));
  out.push_back(std::move(f));
}

void judge_ranks(const FleetInputs& in, std::vector<Finding>& out) {
  std::map<std::string, std::vector<const RankReport*>> by_model;
  for (const RankReport& r : in.ranks) by_model[r.gpu].push_back(&r);
  for (const auto& [model, ranks] : by_model) {
    if (!in.gpu_timings) {
      judge_figure(emulator_figure, fleet_emulator_share, model, ranks, out);
      continue;
    }
    for (const Figure& figure : gpu_figures) judge_figure(figure, like_median_share, model, ranks, out);
  }
}

std::string pair_name(const PairTiming& p) {
  return fmt::format("{} rank {} -> {} rank {}", p.from_host, p.from, p.to_host, p.to);
}

void judge_pair_verification(const std::vector<PairTiming>& pairs, const std::string& via, std::vector<Finding>& out) {
  int broken = 0;
  for (const PairTiming& p : pairs) {
    if (p.intact) continue;
    ++broken;
    Finding f{.check = "pair verification" + via, .subject = pair_name(p), .verdict = Verdict::fail};
    f.measured = "arrived wrong";
    f.expected = "every byte as sent";
    f.basis = "the receiver's device memory, read back after the last repetition";
    f.cause = via.empty() ? "the message changed on its way: device -> host, MPI between the ranks, or host -> device"
                          : "the message changed on its way through NCCL, between the two GPUs' memories";
    f.action = "run `ferry run topo --topology host-staged` across these ranks, which names the round";
    out.push_back(std::move(f));
  }
  if (broken > 0) return;
  Finding f{.check = "pair verification" + via, .subject = fmt::format("{} pairs", pairs.size())};
  f.measured = "every byte intact";
  f.expected = "every byte as sent";
  f.basis = "each receiver's device memory, read back";
  f.verdict = Verdict::ok;
  out.push_back(std::move(f));
}

using PairRates = std::vector<std::pair<const PairTiming*, double>>;

// The host at an end of every pair named and not of every pair there is, if
// one is: a ring's pairs each cross two hosts' links, so a slow host slows the
// two pairs it is in and no other. Between two hosts every pair has both, and
// none is named.
std::optional<std::string> host_of_every(const std::vector<const PairTiming*>& named, const PairRates& all) {
  auto at_an_end = [](const PairTiming* p, const std::string& host) {
    return p->from_host == host || p->to_host == host;
  };
  for (const std::string& host : {named.front()->from_host, named.front()->to_host}) {
    const bool in_every_named =
        std::all_of(named.begin(), named.end(), [&](const PairTiming* p) { return at_an_end(p, host); });
    const bool in_every_pair =
        std::all_of(all.begin(), all.end(), [&](const auto& r) { return at_an_end(r.first, host); });
    if (in_every_named && !in_every_pair) return host;
  }
  return std::nullopt;
}

// The pairs within a host: the slowest shown, not judged (a copy through the
// host's memory, or NCCL over links each rank's own rows judge). Between
// hosts, as the ranks' figures are: each pair held against their median, every
// one below its share named (WARN), or one OK row giving the slowest. Those
// pairs cross a network even on the emulator, so they are judged there too.
void judge_pair_rates(const FleetInputs& in, const PairRates& rates, bool between_hosts, const std::string& via,
                      std::vector<Finding>& out) {
  const auto [slowest, rate] =
      *std::min_element(rates.begin(), rates.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (!between_hosts) {
    Finding shown{.check = "slowest pair within a host" + via,
                  .subject = pair_name(*slowest),
                  .measured = rate_text(rate),
                  .value = rate,
                  .unit = Unit::bytes_per_second};
    if (!in.gpu_timings)
      shown.basis = "the emulator's pairs are CPU copies and MPI through one host's memory: they varied 4x between "
                    "pairs of one run";
    else
      shown.basis = via.empty() ? "MPI between ranks of one host is a copy through its memory: on a healthy 4 x H200 "
                                  "host the pairs gave 5.0 to 6.9 GB/s"
                                : "NCCL within a host takes the GPUs' own links, which each rank's peer rows judge";
    out.push_back(std::move(shown));
    return;
  }
  const std::string check = "pairs between hosts" + via;
  const std::string all = fmt::format("{} pairs", rates.size());
  const std::string slowest_text = fmt::format("slowest {} ({})", rate_text(rate), pair_name(*slowest));
  if (rates.size() < fewest_like) {
    Finding shown =
        not_judged(check, all,
                   fmt::format("a median of fewer than {} pairs says nothing about which is slow", fewest_like));
    shown.measured = slowest_text;
    shown.value = rate;
    shown.unit = Unit::bytes_per_second;
    out.push_back(std::move(shown));
    return;
  }
  std::vector<double> values;
  for (const auto& r : rates) values.push_back(r.second);
  const double median = summarize(values).median;
  auto held = [&](const std::string& subject, double pair_rate) {
    return judge_share(
        {.check = check,
         .subject = subject,
         .measured_Bps = pair_rate,
         .model_Bps = median,
         .share = pair_between_hosts_share,
         .below = Verdict::warn,
         .basis = fmt::format("the median of the {} pairs between hosts, {} messages{}{}", rates.size(),
                              format_bytes(in.pair_bytes), via.empty() ? " through pinned host memory and MPI" : via,
                              in.gpu_timings ? "" : " (on the emulator: CPU copies at each end)")});
  };
  std::vector<Finding> named;
  std::vector<const PairTiming*> named_pairs;
  for (const auto& [pair, pair_rate] : rates) {
    Finding f = held(pair_name(*pair), pair_rate);
    if (f.verdict != Verdict::warn) continue;
    f.cause = fmt::format("{:.0f}% of the pairs' median: the network path between these hosts (a NIC, a cable, a "
                          "switch port)",
                          100 * pair_rate / median);
    f.action = "check both hosts' NICs (`ibstat`, link speed) and the switch ports between them";
    named.push_back(std::move(f));
    named_pairs.push_back(pair);
  }
  if (named.empty()) {
    Finding ok = held(all, rate);
    ok.measured = slowest_text;
    out.push_back(std::move(ok));
    return;
  }
  // A ring's pairs each cross two hosts' links: when every slow one has one host at an end, that host is named.
  if (const std::optional<std::string> host = host_of_every(named_pairs, rates); host && named.size() > 1)
    for (Finding& f : named) {
      f.cause += fmt::format("; every pair named has {} at one end: its link first", *host);
      f.action = fmt::format("check {}'s NIC (`ibstat`, link speed) and its switch port first", *host);
    }
  out.insert(out.end(), std::make_move_iterator(named.begin()), std::make_move_iterator(named.end()));
}

// One transport's pairs: their verification, and the slowest within a host and between hosts.
void judge_pair_set(const FleetInputs& in, const std::vector<PairTiming>& pairs, double bytes_per_timing,
                    const std::string& via, std::vector<Finding>& out) {
  if (pairs.empty()) return;
  judge_pair_verification(pairs, via, out);
  for (const bool between_hosts : {false, true}) {
    PairRates rates;
    for (const PairTiming& p : pairs)
      if ((p.from_host != p.to_host) == between_hosts && p.intact && !p.seconds.empty())
        rates.emplace_back(&p, bytes_per_timing / summarize(p.seconds).median);
    if (!rates.empty()) judge_pair_rates(in, rates, between_hosts, via, out);
  }
}

void judge_pairs(const FleetInputs& in, std::vector<Finding>& out) {
  judge_pair_set(in, in.pairs, static_cast<double>(in.pair_bytes), "", out);
  if (in.pairs.empty()) return;
  if (!in.nccl_skipped.empty()) {
    out.push_back(not_judged("pairs (nccl)", fmt::format("{} pairs", in.pairs.size()), "not run: " + in.nccl_skipped));
    return;
  }
  judge_pair_set(in, in.nccl_pairs, static_cast<double>(in.pair_bytes) * in.nccl_messages, " (nccl)", out);
}

}  // namespace

std::vector<Finding> judge_fleet(const FleetInputs& in) {
  std::vector<Finding> out;
  judge_ranks(in, out);
  judge_pairs(in, out);
  return out;
}

}  // namespace ferry::doctor
