// doctor's NCCL check: NCCL's b(2 MiB) against p2p-ce's on the same
// pair, the NCCL variables in force named; and the measurement on the emulator,
// where p2p-ce runs between two devices and NCCL says why it cannot.
#include "doctor/judge/nccl.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "backend/emu/emu_backend.hpp"
#include "core/error.hpp"
#include "doctor/faults.hpp"
#include "doctor/measure/nccl.hpp"
#include "doctor/thresholds.hpp"

namespace ferry::doctor {
// Its own namespace: a unity build compiles the doctor tests together, and their helpers share names.
namespace nccl_test {
namespace {

using Environment = std::vector<std::pair<std::string, std::string>>;

// A measured pair of GPUs: p2p-ce at the healthy 2 x H200's 337.9 GB/s, NCCL at `share` of it.
NcclPair pair_at(double share) {
  NcclPair p{.first = 0, .second = 1, .how = "b(2 MiB) of the ring of 2 (both ways at once), median of 5 x 20"};
  p.p2p_ce = {.how = "copy engine, graph", .rate_Bps = 337.9e9};
  p.nccl = {.how = "ncclSend/Recv 22803", .rate_Bps = share * 337.9e9};
  return p;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(DoctorNccl, TheHealthyH200ShareIsOk) {
  // The healthy pair in docs/results/beff-h200x2.txt as committed in f1ccb97: 203.2 / 337.9 GB/s at 2 MiB.
  const std::vector<Finding> f = judge_nccl({pair_at(203.2 / 337.9)}, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].check, "nccl vs p2p-ce at 2 MiB");
  EXPECT_EQ(f[0].subject, "GPU 0 <-> 1");
  EXPECT_EQ(f[0].verdict, Verdict::ok);
  EXPECT_DOUBLE_EQ(*f[0].value, 203.2e9);
  EXPECT_DOUBLE_EQ(*f[0].model, 337.9e9);
  EXPECT_TRUE(has(f[0].basis, "NCCL variables: none set")) << f[0].basis;
  EXPECT_TRUE(f[0].cause.empty());
}

TEST(DoctorNccl, ALowShareWarnsWithTheArithmeticAndTheVariablesNamed) {
  const std::vector<Finding> f =
      judge_nccl({pair_at(0.2)},
                 {{"NCCL_PROTO", "Simple"}, {"NCCL_ALGO", "Ring"}, {"CUDA_DEVICE_MAX_CONNECTIONS", "1"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].verdict, Verdict::warn);
  EXPECT_EQ(f[0].expected, ">= 30% of 337.9 GB/s");
  EXPECT_TRUE(has(f[0].cause, "67.6 / 337.9 = 0.20x, below 0.30x")) << f[0].cause;
  EXPECT_TRUE(has(f[0].cause, "NCCL_PROTO=Simple")) << f[0].cause;
  EXPECT_TRUE(has(f[0].cause, "NCCL_ALGO=Ring")) << f[0].cause;
  EXPECT_FALSE(has(f[0].cause, "CUDA_DEVICE_MAX_CONNECTIONS")) << "not an NCCL variable: " << f[0].cause;
  EXPECT_TRUE(has(f[0].basis, "NCCL variables: NCCL_PROTO=Simple, NCCL_ALGO=Ring")) << f[0].basis;
  EXPECT_TRUE(has(f[0].action, "unset NCCL_PROTO, NCCL_ALGO")) << f[0].action;
}

TEST(DoctorNccl, ALowShareWithNoVariableSetSaysNcclChoseItsPath) {
  const std::vector<Finding> f = judge_nccl({pair_at(0.1)}, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].verdict, Verdict::warn);
  EXPECT_TRUE(has(f[0].cause, "no NCCL variable")) << f[0].cause;
  EXPECT_TRUE(has(f[0].action, "NCCL_DEBUG=INFO")) << f[0].action;
}

TEST(DoctorNccl, P2pDisableIsNamedWithItsEffect) {
  const std::vector<Finding> f = judge_nccl({pair_at(0.12)}, {{"NCCL_P2P_DISABLE", "1"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].verdict, Verdict::warn);
  EXPECT_TRUE(has(f[0].cause, "NCCL_P2P_DISABLE=1: NCCL then goes through host memory")) << f[0].cause;
  EXPECT_TRUE(has(f[0].action, "unset NCCL_P2P_DISABLE")) << f[0].action;
}

TEST(DoctorNccl, TheThresholdSitsUnderTheHealthyShareAndAboveThePathThroughTheHost) {
  EXPECT_EQ(judge_nccl({pair_at(nccl_vs_p2p_ce)}, {})[0].verdict, Verdict::ok);
  EXPECT_EQ(judge_nccl({pair_at(nccl_vs_p2p_ce * 0.99)}, {})[0].verdict, Verdict::warn);
  EXPECT_LT(nccl_vs_p2p_ce, 0.6 / 1.5) << "a healthy H200 pair gave 0.60x: leave NCCL's spread room";
  // doctor on H200s: 0.56x on the lowest healthy pair; 0.13x and 0.14x through host memory.
  EXPECT_EQ(judge_nccl({pair_at(0.56)}, {})[0].verdict, Verdict::ok);
  EXPECT_EQ(judge_nccl({pair_at(0.14)}, {{"NCCL_P2P_LEVEL", "LOC"}})[0].verdict, Verdict::warn);
}

TEST(DoctorNccl, ASkippedTransportIsNotJudgedWithTheReason) {
  NcclPair p = pair_at(0.6);
  p.nccl = {.skipped = "this ferry was built without NCCL"};
  const std::vector<Finding> f = judge_nccl({p}, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].verdict, Verdict::not_judged);
  EXPECT_EQ(f[0].basis, "nccl did not run: this ferry was built without NCCL");

  p = pair_at(0.6);
  p.p2p_ce = {.skipped = "devices 0 and 1 cannot reach each other's memory (no peer access)"};
  EXPECT_TRUE(has(judge_nccl({p}, {})[0].basis, "p2p-ce did not run: devices 0 and 1 cannot reach"));
}

TEST(DoctorNccl, EmulatorTimingsAreNotJudged) {
  NcclPair p = pair_at(0.01);
  p.gpu_timings = false;
  const std::vector<Finding> f = judge_nccl({p}, {{"NCCL_P2P_DISABLE", "1"}});
  EXPECT_EQ(f[0].verdict, Verdict::not_judged);
  EXPECT_TRUE(has(f[0].basis, "CPU timings")) << f[0].basis;
}

TEST(DoctorNccl, AWrongWordFailsWhateverTheRates) {
  for (const bool through_nccl : {true, false}) {
    NcclPair p = pair_at(0.6);
    (through_nccl ? p.nccl : p.p2p_ce).wrong_words = 3;
    const std::vector<Finding> f = judge_nccl({p}, {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].verdict, Verdict::fail);
    EXPECT_EQ(f[0].measured, "3 wrong words");
    EXPECT_TRUE(has(f[0].cause, through_nccl ? "(wrong words: nccl 3)" : "(wrong words: p2p-ce 3)")) << f[0].cause;
  }
  NcclPair skipped = pair_at(0);  // a wrong word of p2p-ce fails even where NCCL could not run
  skipped.nccl = {.skipped = "NCCL runs on GPUs only: the emulator has no NCCL"};
  skipped.p2p_ce.wrong_words = 1;
  EXPECT_EQ(judge_nccl({skipped}, {})[0].verdict, Verdict::fail);
}

TEST(DoctorNccl, AFailedTransportWarnsWithItsError) {
  NcclPair p = pair_at(0.6);
  p.nccl = {.failed = "NCCL error 5 (invalid usage) in ncclCommInitRank"};
  const std::vector<Finding> f = judge_nccl({p}, {});
  EXPECT_EQ(f[0].verdict, Verdict::warn);
  EXPECT_TRUE(has(f[0].cause, "nccl failed on the pair: NCCL error 5")) << f[0].cause;
}

TEST(DoctorNccl, PairsPastTheLimitAreNamedInOneFinding) {
  std::vector<NcclPair> pairs(3, pair_at(0.6));
  pairs[1] = {.first = 0, .second = 2, .left_out = true};
  pairs[2] = {.first = 1, .second = 2, .left_out = true};
  const std::vector<Finding> f = judge_nccl(pairs, {});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].verdict, Verdict::not_judged);
  EXPECT_EQ(f[1].subject, "2 more pairs");
  EXPECT_TRUE(has(f[1].basis, "the first 1 pairs of 3")) << f[1].basis;
  EXPECT_TRUE(has(f[1].basis, "GPU 0 <-> 2, GPU 1 <-> 2")) << f[1].basis;
}

TEST(DoctorNccl, TheHookSlowsAPairAndCorruptsAnother) {
  const NcclFaults faults = nccl_faults("pcie=4x8,nccl-slow=1-0,nccl-corrupt=2-3");
  ASSERT_EQ(faults.slow.size(), 1u);
  EXPECT_EQ(faults.slow[0], std::make_pair(1, 0));
  ASSERT_EQ(faults.corrupt.size(), 1u);
  EXPECT_EQ(faults.corrupt[0], std::make_pair(2, 3));
  EXPECT_THROW(nccl_faults("nccl-slow=1"), UsageError);
  EXPECT_THROW(nccl_faults("nccl-slow=1-1"), UsageError);

  NcclPair emulated = pair_at(0.6);
  emulated.gpu_timings = false;
  emulated.nccl = {.skipped = "NCCL runs on GPUs only: the emulator has no NCCL"};
  std::vector<NcclPair> pairs = {emulated};
  provoke_slow_nccl(pairs, 1, 0);
  const std::vector<Finding> f = judge_nccl(pairs, {});
  EXPECT_EQ(f[0].verdict, Verdict::warn) << f[0].basis;
}

TEST(DoctorNccl, OnTheEmulatorP2pCeRunsBetweenTwoDevicesAndNcclSaysWhyNot) {
  emu::EmuBackend backend;
  const auto started = std::chrono::steady_clock::now();
  const std::vector<NcclPair> pairs =
      measure_nccl_pairs(backend, {0, 1}, NcclCheckConfig::for_backend(backend.capabilities()),
                         Progress("doctor", false));
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_FALSE(pairs[0].gpu_timings);
  EXPECT_EQ(pairs[0].p2p_ce.skipped, "");
  EXPECT_EQ(pairs[0].p2p_ce.failed, "");
  EXPECT_GT(pairs[0].p2p_ce.rate_Bps, 0);
  EXPECT_EQ(pairs[0].p2p_ce.wrong_words, 0u);
  EXPECT_FALSE(pairs[0].nccl.skipped.empty());
  EXPECT_EQ(pairs[0].nccl.rate_Bps, 0);
  EXPECT_EQ(judge_nccl(pairs, {})[0].verdict, Verdict::not_judged);
  EXPECT_LT(took_s, 10) << "a loaded 2-core machine; about 0.05 s when idle";
}

TEST(DoctorNccl, OnTheEmulatorACorruptedMessageIsCountedAndFails) {
  emu::EmuBackend backend;
  NcclCheckConfig config = NcclCheckConfig::for_backend(backend.capabilities());
  config.corrupt = {{2, 1}};
  const std::vector<NcclPair> pairs = measure_nccl_pairs(backend, {1, 2, 3}, config, Progress("doctor", false));
  ASSERT_EQ(pairs.size(), 3u);  // 1-2, 1-3, 2-3
  EXPECT_EQ(pairs[0].p2p_ce.wrong_words, 1u);
  EXPECT_EQ(pairs[1].p2p_ce.wrong_words, 0u);
  const std::vector<Finding> f = judge_nccl(pairs, {});
  EXPECT_EQ(f[0].verdict, Verdict::fail);
  EXPECT_EQ(f[1].verdict, Verdict::not_judged);
}

TEST(DoctorNccl, TheHookThroughDoctorsNcclPassWarnsOnOnePairAndFailsAnother) {
  emu::EmuBackend backend;
  const std::vector<NcclPair> pairs =
      nccl_pass(backend, {0, 1, 2}, "other-process=1,nccl-slow=1-0,nccl-corrupt=1-2", Progress("doctor", false));
  const std::vector<Finding> f = judge_nccl(pairs, {});
  ASSERT_EQ(f.size(), 3u);  // 0-1, 0-2, 1-2
  EXPECT_EQ(f[0].verdict, Verdict::warn) << f[0].basis;
  EXPECT_EQ(f[1].verdict, Verdict::not_judged);
  EXPECT_EQ(f[2].verdict, Verdict::fail) << f[2].cause;
}

TEST(DoctorNccl, OnlyTheFirstPairsAreMeasured) {
  emu::EmuBackend backend;
  NcclCheckConfig config = NcclCheckConfig::for_backend(backend.capabilities());
  config.most_pairs = 1;
  const std::vector<NcclPair> pairs = measure_nccl_pairs(backend, {0, 1, 2}, config, Progress("doctor", false));
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_FALSE(pairs[0].left_out);
  EXPECT_GT(pairs[0].p2p_ce.rate_Bps, 0);
  EXPECT_TRUE(pairs[1].left_out && pairs[2].left_out);
  EXPECT_EQ(pairs[1].p2p_ce.rate_Bps, 0);
}

}  // namespace
}  // namespace nccl_test
}  // namespace ferry::doctor
