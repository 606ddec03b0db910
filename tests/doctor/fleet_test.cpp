// doctor's fleet judgments on fleets described in numbers: healthy ranks and
// pairs get OK rows; a slow rank, a slow pair and a pair that arrived wrong are
// each named with the figure they were held against.
#include "doctor/judge/fleet.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "doctor/faults.hpp"
#include "doctor/fleet_report.hpp"
#include "doctor/healthy_inputs.hpp"

namespace ferry::doctor {
// Its own namespace: a unity build compiles the doctor tests together, and their helpers share names.
namespace fleet_test {
namespace {

constexpr double GB = 1e9;

using test_inputs::healthy_fleet;

const Finding* find(const std::vector<Finding>& findings, const std::string& check, const std::string& subject) {
  for (const Finding& f : findings)
    if (f.check == check && f.subject == subject) return &f;
  return nullptr;
}

int count(const std::vector<Finding>& findings, Verdict v) {
  return static_cast<int>(
      std::count_if(findings.begin(), findings.end(), [v](const Finding& f) { return f.verdict == v; }));
}

TEST(DoctorFleet, AHealthyFleetIsOkAndGivesItsLowestRankAndSlowestPairs) {
  const std::vector<Finding> findings = judge_fleet(healthy_fleet(8));
  EXPECT_EQ(count(findings, Verdict::warn) + count(findings, Verdict::fail), 0);
  const Finding* h2d = find(findings, "fleet pinned h2d", "8 x NVIDIA H100 80GB HBM3");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->verdict, Verdict::ok);
  EXPECT_NE(h2d->measured.find("lowest 53.5 GB/s (node0 GPU 0 (rank 0))"), std::string::npos) << h2d->measured;
  const Finding* within = find(findings, "slowest pair within a host", "node0 rank 0 -> node0 rank 1");
  ASSERT_NE(within, nullptr);
  EXPECT_EQ(within->verdict, Verdict::not_judged);  // a copy through host memory: its spread is the host's
  ASSERT_NE(find(findings, "pair verification", "8 pairs"), nullptr);
  EXPECT_EQ(find(findings, "pair verification", "8 pairs")->verdict, Verdict::ok);
  const auto between =
      std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.check == "pairs between hosts"; });
  ASSERT_NE(between, findings.end());
  EXPECT_EQ(between->verdict, Verdict::ok);
  EXPECT_EQ(between->subject, "4 pairs");
  EXPECT_EQ(between->measured, "slowest 12.0 GB/s (node0 rank 1 -> node1 rank 2)");
  EXPECT_NEAR(*between->value, 12 * GB, 0.2 * GB);
}

TEST(DoctorFleet, ARankBelowTheFleetsMedianIsNamedWithTheArithmetic) {
  FleetInputs in = healthy_fleet(8);
  in.ranks[5].d2h_Bps = 40 * GB;  // 73% of 54.7: a slot trained low, or a far NUMA node
  const std::vector<Finding> findings = judge_fleet(in);
  const Finding* slow = find(findings, "fleet pinned d2h", "node2 GPU 1 (rank 5)");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->verdict, Verdict::fail);
  EXPECT_NE(slow->cause.find("73% of the fleet's like GPUs"), std::string::npos) << slow->cause;
  EXPECT_EQ(slow->expected, ">= 85% of 54.7 GB/s");
  EXPECT_EQ(find(findings, "fleet pinned d2h", "8 x NVIDIA H100 80GB HBM3"), nullptr);  // no OK row beside it
  EXPECT_EQ(count(findings, Verdict::fail), 1);
}

TEST(DoctorFleet, ARateBelowAGigabyteASecondReadsInMegabytes) {
  EXPECT_EQ(rate_text(12.5e6), "12.5 MB/s") << "a tenth of a GB/s would read 0.0";
  EXPECT_EQ(rate_text(999.9e6), "999.9 MB/s");
  EXPECT_EQ(rate_text(1e9), "1.0 GB/s");
  EXPECT_EQ(rate_text(53.46e9), "53.5 GB/s");
}

TEST(DoctorFleet, FewerThanThreeLikeGpusAreNotJudged) {
  FleetInputs in = healthy_fleet(2);
  in.ranks[1].h2d_Bps = 20 * GB;
  const std::vector<Finding> findings = judge_fleet(in);
  const Finding* h2d = find(findings, "fleet pinned h2d", "2 x NVIDIA H100 80GB HBM3");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->verdict, Verdict::not_judged);
  EXPECT_EQ(count(findings, Verdict::fail), 0);
}

TEST(DoctorFleet, TheSlowestPairBetweenHostsIsNamed) {
  FleetInputs in = healthy_fleet(8);
  for (double& s : in.pairs[3].seconds) s *= 2;  // node1 -> node2 at 6 GB/s: a NIC or cable
  const std::vector<Finding> findings = judge_fleet(in);
  const Finding* slow = find(findings, "pairs between hosts", "node1 rank 3 -> node2 rank 4");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->verdict, Verdict::warn);
  EXPECT_EQ(slow->expected, ">= 70% of 12.0 GB/s");
  EXPECT_EQ(slow->cause, "50% of the pairs' median: the network path between these hosts (a NIC, a cable, a switch "
                         "port)")
      << "one pair names no host of its own";
  EXPECT_EQ(std::count_if(findings.begin(), findings.end(),
                          [](const Finding& f) { return f.check == "pairs between hosts"; }),
            1)
      << "the slow pair alone, no OK row beside it";
}

// A host whose link is slow slows both pairs of the ring it is in: both are
// named, and so is the host they share; the pairs without it are not.
TEST(DoctorFleet, EveryPairBetweenHostsBelowTheirMedianIsNamedWithTheHostTheyShare) {
  FleetInputs in = healthy_fleet(6, 1);  // a host a rank: node0 -> node1 -> ... -> node5 -> node0
  for (const int slowed : {1, 2})        // node1 -> node2 and node2 -> node3: node2's link at a quarter
    for (double& s : in.pairs[slowed].seconds) s *= 4;
  for (const bool emulator : {false, true}) {
    SCOPED_TRACE(emulator ? "the emulator: the pairs between hosts cross a network there too" : "GPUs");
    in.gpu_timings = !emulator;
    const std::vector<Finding> findings = judge_fleet(in);
    std::vector<std::string> named;
    for (const Finding& f : findings)
      if (f.check == "pairs between hosts" && f.verdict == Verdict::warn) {
        named.push_back(f.subject);
        EXPECT_NE(f.cause.find("; every pair named has node2 at one end: its link first"), std::string::npos)
            << f.cause;
        EXPECT_EQ(f.action, "check node2's NIC (`ibstat`, link speed) and its switch port first");
      }
    EXPECT_EQ(named, (std::vector<std::string>{"node1 rank 1 -> node2 rank 2", "node2 rank 2 -> node3 rank 3"}));
  }
}

// Between two hosts every pair has both at its ends: slow pairs there are
// named, but no host, since neither is missing from the pairs that were fast.
TEST(DoctorFleet, BetweenTwoHostsSlowPairsAreNamedButNoHost) {
  FleetInputs in = healthy_fleet(6, 3);  // node0: ranks 0-2, node1: ranks 3-5; pairs 2 -> 3 and 5 -> 0 between
  for (const int slowed : {2, 5})
    for (double& s : in.pairs[slowed].seconds) s *= 4;
  for (const int from : {0, 1}) {  // two more pairs between the hosts, at the healthy rate
    PairTiming fast = in.pairs[2];
    fast.from = from;
    fast.seconds = in.pairs[0].seconds;
    for (double& s : fast.seconds) s *= 20.0 / 12;  // 12 GB/s, as between hosts
    in.pairs.push_back(fast);
  }
  const std::vector<Finding> findings = judge_fleet(in);
  std::vector<std::string> named;
  for (const Finding& f : findings)
    if (f.check == "pairs between hosts" && f.verdict == Verdict::warn) {
      named.push_back(f.subject);
      EXPECT_EQ(f.cause.find("every pair named has"), std::string::npos) << f.cause;
    }
  EXPECT_EQ(named, (std::vector<std::string>{"node0 rank 2 -> node1 rank 3", "node1 rank 5 -> node0 rank 0"}));
}

TEST(DoctorFleet, NcclsPairsAreJudgedBesideMpiStagedsAndItsSkipIsNamed) {
  FleetInputs in = healthy_fleet(8);
  in.nccl_messages = 4;
  in.nccl_pairs = in.pairs;
  for (PairTiming& p : in.nccl_pairs)
    for (double& s : p.seconds) s *= 4.0 / 2;         // 4 messages in twice one's time: NCCL at twice mpi-staged's rate
  for (double& s : in.nccl_pairs[5].seconds) s *= 2;  // node2 -> node3 at half the others
  const std::vector<Finding> findings = judge_fleet(in);
  const Finding* slow = find(findings, "pairs between hosts (nccl)", "node2 rank 5 -> node3 rank 6");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->verdict, Verdict::warn);
  EXPECT_NEAR(*slow->model, 24 * GB, 0.5 * GB);
  ASSERT_NE(find(findings, "pair verification (nccl)", "8 pairs"), nullptr);
  in.nccl_skipped = "NCCL runs on GPUs only: the emulator has no NCCL";
  const std::vector<Finding> without_nccl = judge_fleet(in);
  const Finding* skipped = find(without_nccl, "pairs (nccl)", "8 pairs");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(skipped->verdict, Verdict::not_judged);
  EXPECT_EQ(skipped->basis, "not run: NCCL runs on GPUs only: the emulator has no NCCL");
}

TEST(DoctorFleet, APairThatArrivedWrongFails) {
  FleetInputs in = healthy_fleet(4);
  in.pairs[2].intact = false;
  const std::vector<Finding> findings = judge_fleet(in);
  const Finding* wrong = find(findings, "pair verification", "node1 rank 2 -> node1 rank 3");
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(wrong->verdict, Verdict::fail);
  EXPECT_EQ(find(findings, "pair verification", "4 pairs"), nullptr);
}

TEST(DoctorFleet, APairThatArrivedWrongThroughNcclFailsBesideItsIntactCopyThroughMpi) {
  FleetInputs in = healthy_fleet(4);
  in.nccl_messages = 4;
  in.nccl_pairs = in.pairs;
  in.nccl_pairs[1].intact = false;
  const std::vector<Finding> findings = judge_fleet(in);
  const Finding* wrong = find(findings, "pair verification (nccl)", "node0 rank 1 -> node1 rank 2");
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(wrong->verdict, Verdict::fail);
  EXPECT_NE(wrong->cause.find("through NCCL"), std::string::npos) << wrong->cause;
  EXPECT_EQ(find(findings, "pair verification (nccl)", "4 pairs"), nullptr);
  const Finding* through_mpi = find(findings, "pair verification", "4 pairs");
  ASSERT_NE(through_mpi, nullptr);
  EXPECT_EQ(through_mpi->verdict, Verdict::ok);
}

TEST(DoctorFleet, OnTheEmulatorARanksFiguresTogetherAtUnderHalfTheMedianAreNamedAndPairsNotJudged) {
  FleetInputs in = healthy_fleet(4);
  in.gpu_timings = false;
  in.ranks[1].h2d_Bps *= 0.4;  // one figure this low is the emulator's spread between turns
  for (double* rate :
       {&in.ranks[2].h2d_Bps, &in.ranks[2].d2h_Bps, &in.ranks[2].both_ways_Bps, &in.ranks[2].device_copy_Bps})
    *rate *= 0.4;
  for (double& s : in.pairs[0].seconds) s *= 4;
  const std::vector<Finding> findings = judge_fleet(in);
  const Finding* slow = find(findings, "fleet figures", "node1 GPU 0 (rank 2)");
  ASSERT_NE(slow, nullptr);
  EXPECT_NEAR(*slow->value / *slow->model, 0.4 / ((1 + std::pow(0.4, 0.25)) / 2), 0.01);  // rank 1 at 0.8 of the rest
  EXPECT_EQ(count(findings, Verdict::fail), 1);
  EXPECT_EQ(find(findings, "fleet pinned h2d", "node0 GPU 1 (rank 1)"), nullptr);
  const auto pair = std::find_if(findings.begin(), findings.end(),
                                 [](const Finding& f) { return f.check == "slowest pair within a host"; });
  ASSERT_NE(pair, findings.end());
  EXPECT_EQ(pair->verdict, Verdict::not_judged);
}

TEST(DoctorFleet, EveryRanksFindingsAreKeptUnderWhereTheyRan) {
  FleetInputs in = healthy_fleet(2);
  in.ranks[1].findings.push_back({.check = "pcie link", .subject = "GPU 1", .verdict = Verdict::fail});
  const std::vector<Finding> all = all_findings(in, judge_fleet(in));
  ASSERT_NE(find(all, "pcie link", "node0 (rank 1): GPU 1"), nullptr);
  const std::string text = render_fleet(in, judge_fleet(in));
  EXPECT_NE(text.find("FAIL pcie link (node0 (rank 1): GPU 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("ferry doctor: 2 ranks on 1 host"), std::string::npos) << text;
}

TEST(DoctorFleet, TheHooksFleetConditionsAreTakenOutAndTheRestLeft) {
  std::string hook = "pcie=4x8,slow-rank=2,corrupt-pair=1,other-process=0";
  const FleetFaults faults = take_fleet_faults(hook);
  EXPECT_EQ(faults.slow_rank, 2);
  EXPECT_EQ(faults.corrupt_pair, 1);
  EXPECT_EQ(hook, "pcie=4x8,other-process=0");
  std::string bad = "slow-rank=two";
  EXPECT_THROW(take_fleet_faults(bad), UsageError);
}

}  // namespace
}  // namespace fleet_test
}  // namespace ferry::doctor
