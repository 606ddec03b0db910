// Every band of doctor's verdicts, held at each of its edges: a figure exactly
// at a threshold of doctor/thresholds.hpp gets the verdict of the side the
// judgment puts it on (75% of the link is OK, 1.5x a reference is OK), and the
// next figure past it the verdict of the band beyond, as docs/doctor.md's
// tables say. The cases are made from the constants, so a threshold moved in
// thresholds.hpp moves them; thresholds_test holds the constants' shape, so a
// band taken out of the table fails there as well as here.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "doctor/healthy_inputs.hpp"
#include "doctor/judge/diagnose.hpp"
#include "doctor/judge/fleet.hpp"
#include "doctor/judge/latency.hpp"
#include "doctor/judge/nccl.hpp"
#include "doctor/judge/pass_time.hpp"
#include "doctor/references.hpp"
#include "doctor/test_findings.hpp"
#include "doctor/thresholds.hpp"
#include "model/link_model.hpp"

// Its own namespace: a unity build compiles the doctor tests together, and their helpers share names.
namespace ferry::doctor::bands_test {
namespace {

constexpr double up = std::numeric_limits<double>::infinity();
constexpr double down = -up;

using test_findings::find;
using test_inputs::healthy;
using test_inputs::healthy_fleet;

// One check's figure as a test moves it: the finding a machine gets with the input at x.
struct Probe {
  std::string what;  // "pinned h2d GPU 0"
  std::function<Finding(double input)> finding;
  double worse = down;           // the way the input goes to make the figure worse
  bool higher_is_worse = false;  // of the figure: a latency, idle traffic, the pass's time
  bool multiple = false;         // the figure the judgment compares is value / model, a latency's multiple
};

// Where one band ends and the next begins: `at` is the verdict of a figure
// exactly at `bound`, `past` that of the next figure toward worse.
struct Edge {
  double bound = 0;  // in the figure's units: B/s, seconds, or a latency's multiple
  Verdict at = Verdict::ok;
  Verdict past = Verdict::warn;
  double model = 0;  // what the table says the figure is held against, in the finding's units
};

double figure_of(const Probe& probe, const Finding& f) {
  if (!f.value || !f.model) throw std::runtime_error(probe.what + ": the finding gives no figure");
  return probe.multiple ? *f.value / *f.model : *f.value;
}

std::string described(const Probe& probe, const Edge& edge, const Finding& f) {
  return fmt::format("{}: figure {:.17g} against the edge at {:.17g} (held against {:.17g}): {}", probe.what,
                     figure_of(probe, f), edge.bound, edge.model, verdict_name(f.verdict));
}

// Holds `probe` to `edge`: the last input whose figure is at the bound or
// before it, and the next input, whose figure is past it. Returns whether the
// first was exactly at the bound: only then is the side of the edge that an
// equal figure falls on pinned. An input that is the figure itself always is;
// a figure the judgment divides out (a latency's multiple, a pair's rate) may
// step over the bound between two neighbouring inputs, and those two then pin
// the edge to one step.
bool expect_edge(const Probe& probe, const Edge& edge, double guess) {
  auto is_past = [&](double x) {
    const double figure = figure_of(probe, probe.finding(x));
    return probe.higher_is_worse ? figure > edge.bound : figure < edge.bound;
  };
  double inside = guess;
  for (int step = 0;; ++step) {
    if (step == 1000) {
      ADD_FAILURE() << probe.what << ": no input within 1000 steps of " << guess << " crosses " << edge.bound;
      return false;
    }
    if (is_past(inside)) inside = std::nextafter(inside, -probe.worse);
    else if (!is_past(std::nextafter(inside, probe.worse))) inside = std::nextafter(inside, probe.worse);
    else break;
  }
  const Finding at = probe.finding(inside);
  const Finding past = probe.finding(std::nextafter(inside, probe.worse));
  EXPECT_EQ(verdict_name(at.verdict), verdict_name(edge.at)) << described(probe, edge, at);
  EXPECT_EQ(verdict_name(past.verdict), verdict_name(edge.past)) << described(probe, edge, past);
  EXPECT_EQ(*at.model, edge.model) << probe.what << ": held against another figure than the table's";
  return figure_of(probe, at) == edge.bound;
}

// Each edge on a probe whose input is the figure itself, which reaches every bound exactly.
void expect_edges(const Probe& probe, const std::vector<Edge>& edges) {
  for (const Edge& edge : edges)
    EXPECT_TRUE(expect_edge(probe, edge, edge.bound)) << probe.what << ": no figure exactly at " << edge.bound;
}

// A share with a WARN band: OK from warn_below of the model, WARN from fail_below, FAIL under it.
std::vector<Edge> share_bands(double model, const Threshold& t) {
  return {{t.warn_below * model, Verdict::ok, Verdict::warn, model},
          {t.fail_below * model, Verdict::warn, Verdict::fail, model}};
}

// A share with one edge: OK from `share` of the model, `below` under it.
std::vector<Edge> share_edge(double model, double share, Verdict below) {
  return {{share * model, Verdict::ok, below, model}};
}

// A figure of one pass, set by `set`, judged as doctor judges a pass.
Probe pass_probe(const std::string& check, const std::string& subject, const Inputs& in,
                 std::function<void(Inputs&, double)> set) {
  return {.what = check + " " + subject, .finding = [=](double x) {
            Inputs changed = in;
            set(changed, x);
            return find(diagnose(changed), check, subject);
          }};
}

// GPU 0's figure `rate` of a healthy machine of `gpus`.
Probe gpu_rate(const std::string& check, double model::DeviceProfile::*rate, int gpus = 1, int device = 0) {
  return pass_probe(check, gpu_subject(device), healthy(gpus),
                    [=](Inputs& in, double x) { in.figures.devices[device].*rate = x; });
}

// The peer copy GPU 0 -> 1 of a healthy machine of `gpus`.
Probe peer_rate(const std::string& check, const std::string& subject, int gpus) {
  return pass_probe(check, subject, healthy(gpus), [](Inputs& in, double x) {
    for (model::PeerProfile& p : in.figures.peers)
      if (p.from == 0 && p.to == 1) p.copy_Bps = x;
  });
}

TEST(DoctorBands, PinnedCopiesEachWayAreOkWarnAndFailAgainstTheirLink) {
  const double link = model::pcie_Bps(5, 16);
  expect_edges(gpu_rate("pinned h2d", &model::DeviceProfile::h2d_Bps), share_bands(link, pinned_vs_pcie));
  expect_edges(gpu_rate("pinned d2h", &model::DeviceProfile::d2h_Bps), share_bands(link, pinned_vs_pcie));
}

TEST(DoctorBands, PinnedCopiesBothWaysAreOkWarnAndFailAgainstBothDirectionsOfTheLink) {
  expect_edges(gpu_rate("pinned both ways", &model::DeviceProfile::bidirectional_Bps),
               share_bands(2 * model::pcie_Bps(5, 16), both_ways_vs_pcie));
}

TEST(DoctorBands, PageableCopiesWarnBelowTheirShareOfPinned) {
  const model::DeviceProfile pinned = healthy(1).figures.devices[0];  // a copy: healthy() returns a temporary
  expect_edges(gpu_rate("pageable h2d", &model::DeviceProfile::pageable_h2d_Bps),
               share_edge(pinned.h2d_Bps, pageable_vs_pinned, Verdict::warn));
  expect_edges(gpu_rate("pageable d2h", &model::DeviceProfile::pageable_d2h_Bps),
               share_edge(pinned.d2h_Bps, pageable_vs_pinned, Verdict::warn));
}

TEST(DoctorBands, TheDeviceCopyIsOkWarnAndFailAgainstHalfItsMemorysRate) {
  const double half = model::device_copy_Bps(healthy(1).machine.gpus[0].memory_bandwidth_Bps);
  expect_edges(gpu_rate("device copy", &model::DeviceProfile::device_copy_Bps), share_bands(half, device_copy_vs_hbm));
}

TEST(DoctorBands, APeerCopyIsOkWarnAndFailAgainstItsNvlinks) {
  const double links = model::peer_link(healthy(2).machine, 0, 1).Bps;
  expect_edges(peer_rate("peer copy", "GPU 0 -> 1", 2), share_bands(links, peer_vs_link));
}

TEST(DoctorBands, AGpuOrPairFailsBelowItsShareOfTheMedianOfItsLike) {
  // GPU 3's slower direction among four alike, and one pair of twelve: the median stays the others'.
  const Inputs four = healthy(4);
  const double others = std::min(four.figures.devices[0].h2d_Bps, four.figures.devices[0].d2h_Bps);
  expect_edges(gpu_rate("pinned vs like GPUs", &model::DeviceProfile::h2d_Bps, 4, 3),
               share_edge(others, like_median_share, Verdict::fail));
  expect_edges(peer_rate("peer vs like pairs", "GPU 0 -> 1", 4),
               share_edge(four.figures.peers[1].copy_Bps, like_median_share, Verdict::fail));
}

TEST(DoctorBands, APairWarnsWhenOneDirectionFallsBelowItsShareOfTheOther) {
  const double other_way = healthy(2).figures.peers[1].copy_Bps;  // GPU 1 -> 0
  expect_edges(peer_rate("peer asymmetry", "GPU 0 <-> 1", 2), share_edge(other_way, asymmetry_share, Verdict::warn));
}

TEST(DoctorBands, ALikeMedianIsJudgedFromTheFewestLikeAndNotBelow) {
  for (const std::size_t like : {fewest_like, fewest_like - 1}) {
    SCOPED_TRACE(fmt::format("{} like", like));
    Inputs gpus = healthy(static_cast<int>(like));
    gpus.figures.devices[0].h2d_Bps /= 4;  // the issue trackers' case: a quarter of the others
    const std::vector<Finding> by_gpu = diagnose(gpus);
    const bool judged = like >= fewest_like;
    const auto named = [&](const std::vector<Finding>& all, const std::string& check) {
      return std::count_if(all.begin(), all.end(), [&](const Finding& f) { return f.check == check; });
    };
    EXPECT_EQ(named(by_gpu, "pinned vs like GPUs"), judged ? static_cast<long>(like) : 0);
    if (judged) EXPECT_EQ(find(by_gpu, "pinned vs like GPUs", "GPU 0").verdict, Verdict::fail);

    // As many pairs measured as `like`, GPU 0 -> 1 at a quarter of the others.
    Inputs pairs = healthy(static_cast<int>(fewest_like));
    for (std::size_t p = 0; p < pairs.figures.peers.size(); ++p)
      if (p >= like) pairs.figures.peers[p].copy_Bps = 0;
    pairs.figures.peers[0].copy_Bps /= 4;
    const std::vector<Finding> by_pair = diagnose(pairs);
    EXPECT_EQ(named(by_pair, "peer vs like pairs"), judged ? static_cast<long>(like) : 0);
    if (judged) EXPECT_EQ(find(by_pair, "peer vs like pairs", "GPU 0 -> 1").verdict, Verdict::fail);
  }
}

TEST(DoctorBands, PcieTrafficWhileDoctorIdlesWarnsAboveTheIdleRateEitherWay) {
  for (const auto& [way, rate] : {std::pair{"in", &PcieTraffic::rx_Bps}, std::pair{"out", &PcieTraffic::tx_Bps}}) {
    Probe probe = pass_probe("pcie traffic", "GPU 0", healthy(1),
                             [one_way = rate](Inputs& in, double x) { in.idle_pcie_traffic[0].second.*one_way = x; });
    probe.what += std::string(" ") + way;
    probe.worse = up;
    probe.higher_is_worse = true;
    expect_edges(probe, {{idle_pcie_traffic_Bps, Verdict::ok, Verdict::warn, idle_pcie_traffic_Bps}});
  }
}

TEST(DoctorBands, EachLatencyIsOkWarnAndFailAgainstItsReference) {
  const LatencyLimit& limit = latency_vs_reference;
  const std::vector<std::pair<double, Verdict>> edges = {{limit.warn_above, Verdict::ok},
                                                         {limit.fail_above, Verdict::warn}};
  std::vector<bool> pinned(edges.size(), false);
  for (const LatencyReference& ref : latency_references())
    for (const LatencyFigure& figure : latency_figures()) {
      Inputs in = healthy(1);
      in.machine.gpus[0].name = in.figures.devices[0].name = std::string(ref.gpu);
      for (const LatencyFigure& each : latency_figures()) in.figures.devices[0].*each.measured = ref.*each.reference;
      Probe probe = pass_probe(std::string(figure.check), "GPU 0", in, [&figure](Inputs& changed, double x) {
        changed.figures.devices[0].*figure.measured = x;
      });
      probe.what += " of an " + std::string(ref.short_name);
      probe.worse = up;
      probe.higher_is_worse = true;
      probe.multiple = true;
      const double reference = ref.*figure.reference;
      for (std::size_t e = 0; e < edges.size(); ++e) {
        const Verdict past = e + 1 < edges.size() ? edges[e + 1].second : Verdict::fail;
        pinned[e] =
            expect_edge(probe, {edges[e].first, edges[e].second, past, reference}, edges[e].first * reference) ||
            pinned[e];
      }
    }
  // A latency's multiple is divided out, and for some references no latency
  // gives the limit exactly; the side of each edge must be pinned on one.
  for (std::size_t e = 0; e < edges.size(); ++e)
    EXPECT_TRUE(pinned[e]) << "no latency of a shipped reference is exactly " << edges[e].first << "x it";
}

TEST(DoctorBands, NcclWarnsBelowItsShareOfTheCopyEnginesOnThePair) {
  constexpr double p2p_ce_Bps = 337.9e9;  // the healthy 2 x H200's b(2 MiB), docs/results/beff-h200x2.txt
  const Probe probe{.what = "nccl vs p2p-ce at 2 MiB GPU 0 <-> 1", .finding = [](double x) {
                      NcclPair p{.first = 0, .second = 1, .how = "b(2 MiB) of the ring of 2"};
                      p.p2p_ce = {.how = "copy engine", .rate_Bps = p2p_ce_Bps};
                      p.nccl = {.how = "ncclSend/Recv", .rate_Bps = x};
                      return judge_nccl({p}, {}).at(0);
                    }};
  expect_edges(probe, share_edge(p2p_ce_Bps, nccl_vs_p2p_ce, Verdict::warn));
}

// The one finding of `check` a fleet gets: a rank named, or the row that gives the lowest.
Finding only(const std::vector<Finding>& findings, const std::string& check) {
  std::vector<Finding> of_check;
  for (const Finding& f : findings)
    if (f.check == check) of_check.push_back(f);
  if (of_check.size() != 1) throw std::runtime_error(fmt::format("{} findings of '{}'", of_check.size(), check));
  return of_check[0];
}

Probe fleet_probe(const std::string& check, const FleetInputs& in, std::function<void(FleetInputs&, double)> set) {
  return {.what = check, .finding = [=](double x) {
            FleetInputs changed = in;
            set(changed, x);
            return only(judge_fleet(changed), check);
          }};
}

using RankFigure = double RankReport::*;
constexpr std::pair<const char*, RankFigure> rank_figures[] = {{"fleet pinned h2d", &RankReport::h2d_Bps},
                                                               {"fleet pinned d2h", &RankReport::d2h_Bps},
                                                               {"fleet both ways", &RankReport::both_ways_Bps},
                                                               {"fleet device copy", &RankReport::device_copy_Bps}};

// Eight H100s, two a host, every rank's figures alike: the fleet's median is any rank's.
FleetInputs alike_fleet() {
  FleetInputs in = healthy_fleet(8);
  for (RankReport& r : in.ranks)
    for (const auto& [check, figure] : rank_figures) r.*figure = in.ranks[0].*figure;
  return in;
}

TEST(DoctorBands, ARankFailsBelowItsShareOfTheFleetsMedianOnEachFigure) {
  const FleetInputs in = alike_fleet();
  for (const auto& [check, figure] : rank_figures)
    expect_edges(fleet_probe(check, in,
                             [rank_figure = figure](FleetInputs& f, double x) { f.ranks[5].*rank_figure = x; }),
                 share_edge(in.ranks[0].*figure, like_median_share, Verdict::fail));
}

TEST(DoctorBands, OnTheEmulatorARankFailsBelowItsShareOfTheMedianOfTheFiguresTogether) {
  FleetInputs in = alike_fleet();
  in.gpu_timings = false;
  const double median = *only(judge_fleet(in), "fleet figures").value;  // every rank's, all alike
  const Probe probe = fleet_probe("fleet figures", in, [](FleetInputs& f, double x) {
    for (const auto& [check, figure] : rank_figures) f.ranks[5].*figure = x;
  });
  // The figures together are a mean the judgment works out: like a pair's rate, it may step over the bound.
  expect_edge(probe, {fleet_emulator_share * median, Verdict::ok, Verdict::fail, median},
              fleet_emulator_share * median);
}

TEST(DoctorBands, TheSlowestPairBetweenHostsWarnsBelowItsShareOfTheirMedian) {
  FleetInputs in = healthy_fleet(4, 1);  // a host a rank: every pair of the ring is between hosts
  in.nccl_messages = 4;
  in.nccl_pairs = in.pairs;
  for (const bool nccl : {false, true}) {
    const std::string check = std::string("pairs between hosts") + (nccl ? " (nccl)" : "");
    const double median = *only(judge_fleet(in), check).value;  // every pair's, all alike
    const double bytes = static_cast<double>(in.pair_bytes) * (nccl ? in.nccl_messages : 1);
    Probe probe = fleet_probe(check, in, [nccl](FleetInputs& f, double seconds) {
      (nccl ? f.nccl_pairs : f.pairs)[0].seconds = {seconds};
    });
    probe.worse = up;  // the input is the pair's time; its rate is bytes / time
    // A rate is divided out of the time, and may step over the bound; the side of judge_share's edge is
    // pinned by the rates above.
    const double bound = pair_between_hosts_share * median;
    expect_edge(probe, {bound, Verdict::ok, Verdict::warn, median}, bytes / bound);
  }
}

TEST(DoctorBands, TheFleetJudgesAMedianOfTheFewestLikeAndNotBelow) {
  for (const std::size_t like : {fewest_like, fewest_like - 1}) {
    SCOPED_TRACE(fmt::format("{} like", like));
    const bool judged = like >= fewest_like;
    FleetInputs ranks = healthy_fleet(static_cast<int>(like));
    ranks.ranks[0].h2d_Bps /= 4;
    EXPECT_EQ(only(judge_fleet(ranks), "fleet pinned h2d").verdict, judged ? Verdict::fail : Verdict::not_judged);

    FleetInputs pairs = healthy_fleet(static_cast<int>(like), 1);  // `like` pairs, all between hosts
    for (double& s : pairs.pairs[0].seconds) s *= 4;
    EXPECT_EQ(only(judge_fleet(pairs), "pairs between hosts").verdict, judged ? Verdict::warn : Verdict::not_judged);
  }
}

TEST(DoctorBands, APassPastItsBudgetWarns) {
  const Probe probe{.what = "pass time host",
                    .finding = [](double took_s) { return judge_pass_time(took_s, pass_time_budget_s); },
                    .worse = up,
                    .higher_is_worse = true};
  expect_edges(probe, {{pass_time_budget_s, Verdict::ok, Verdict::warn, pass_time_budget_s}});
}

TEST(DoctorBands, APcieLinkOrNvlinksOneShortOfTheirMostFail) {
  const Inputs in = healthy(2);
  EXPECT_EQ(find(diagnose(in), "pcie link", "GPU 0").verdict, Verdict::ok);
  EXPECT_EQ(find(diagnose(in), "nvlinks", "GPU 0").verdict, Verdict::ok);
  for (const auto& [generation, width] : {std::pair{4, 16}, std::pair{5, 8}}) {  // of Gen5 x16
    Inputs slow = in;
    slow.machine.gpus[0].pcie.generation = generation;
    slow.machine.gpus[0].pcie.width = width;
    EXPECT_EQ(find(diagnose(slow), "pcie link", "GPU 0").verdict, Verdict::fail) << generation << " x" << width;
  }
  Inputs down_one = in;
  down_one.machine.gpus[0].nvlinks -= 1;
  EXPECT_EQ(find(diagnose(down_one), "nvlinks", "GPU 0").verdict, Verdict::fail);
}

}  // namespace
}  // namespace ferry::doctor::bands_test
