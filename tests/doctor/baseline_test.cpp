// --baseline's comparison on findings described in numbers: which way each
// figure may move, the margin at both its edges, GPUs matched by UUID whatever
// their index, and what is left uncompared.
#include "doctor/baseline.hpp"

#include <gtest/gtest.h>

#include "doctor/test_findings.hpp"

// A namespace of its own: a unity build compiles it with the other doctor tests, whose helpers share its names.
namespace ferry::doctor::baseline_test {
namespace {

using test_findings::find;
using test_findings::not_ok;

constexpr double GB = 1e9;

Machine two_gpus(const std::string& first_uuid, const std::string& second_uuid) {
  Machine m;
  m.backend = "cuda";
  for (const auto& uuid : {first_uuid, second_uuid}) {
    GpuFacts g;
    g.index = static_cast<int>(m.gpus.size());
    g.uuid = uuid;
    m.gpus.push_back(g);
  }
  return m;
}

Finding rate(const std::string& check, const std::string& subject, double Bps, Worse worse = Worse::lower) {
  return {.check = check, .subject = subject, .value = Bps, .unit = Unit::bytes_per_second, .worse = worse};
}

Baseline of(std::vector<BaselineFigure> figures) {
  return {.path = "base.json", .created_utc = "2026-11-20T08:00:00Z", .figures = std::move(figures)};
}

TEST(DoctorBaseline, ARateMoreThanTheMarginBelowItsBaselineIsAWarnAndOneAtTheMarginIsNot) {
  const Machine m = two_gpus("GPU-a", "GPU-b");
  const Baseline base = of({{"pinned d2h", "GPU GPU-a", 50 * GB}, {"pinned d2h", "GPU GPU-b", 50 * GB}});
  // GPU 0 at exactly 90% of its baseline: not worse by more than 10%; GPU 1 at 88%.
  const std::vector<Finding> out =
      compare_with_baseline({rate("pinned d2h", "GPU 0", 45 * GB), rate("pinned d2h", "GPU 1", 44 * GB)}, m, base,
                            0.10);
  EXPECT_EQ(not_ok(out), (std::vector<std::string>{"pinned d2h vs baseline GPU 1", "baseline host"}));
  const Finding w = find(out, "pinned d2h vs baseline", "GPU 1");
  EXPECT_EQ(w.measured, "44.0 GB/s");
  EXPECT_EQ(w.expected, ">= 90% of 50.0 GB/s");
  EXPECT_EQ(*w.model, 50 * GB);
  EXPECT_NE(w.cause.find("fell since 2026-11-20T08:00:00Z: 50.0 GB/s then, 44.0 GB/s now (88% of"), std::string::npos)
      << w.cause;
  EXPECT_EQ(find(out, "baseline", "host").measured, "1 of 2 figures worse");
}

TEST(DoctorBaseline, ATimeIsWorseWhenItGrowsAndARateThatRoseIsNeverNamed) {
  const Machine m = two_gpus("GPU-a", "GPU-b");
  const Baseline base = of({{"launch + sync", "GPU GPU-a", 10e-6}, {"pinned h2d", "GPU GPU-a", 50 * GB}});
  Finding slower{
      .check = "launch + sync", .subject = "GPU 0", .value = 12e-6, .unit = Unit::seconds, .worse = Worse::higher};
  const std::vector<Finding> out = compare_with_baseline({slower, rate("pinned h2d", "GPU 0", 80 * GB)}, m, base, 0.10);
  EXPECT_EQ(not_ok(out), (std::vector<std::string>{"launch + sync vs baseline GPU 0", "baseline host"}));
  EXPECT_EQ(find(out, "launch + sync vs baseline", "GPU 0").expected, "<= 10.00 us / 90%");
  // 10 us then, 11.1 us now: 90% of its earlier pace, at the margin.
  slower.value = 10e-6 / 0.9;
  EXPECT_EQ(not_ok(compare_with_baseline({slower}, m, base, 0.10)), std::vector<std::string>{});
}

TEST(DoctorBaseline, GpusAreMatchedByUuidNotByIndex) {
  // The node's GPUs enumerate the other way round now: GPU 0 is the baseline's GPU 1.
  const Machine now = two_gpus("GPU-b", "GPU-a");
  const Baseline base = of({{"peer copy", "GPU GPU-a -> GPU-b", 400 * GB}, {"device copy", "GPU GPU-b", 1400 * GB}});
  const std::vector<Finding> out =
      compare_with_baseline({rate("peer copy", "GPU 1 -> 0", 300 * GB), rate("device copy", "GPU 0", 1400 * GB)}, now,
                            base, 0.10);
  EXPECT_EQ(not_ok(out), (std::vector<std::string>{"peer copy vs baseline GPU 1 -> 0", "baseline host"}));
  EXPECT_EQ(subject_by_uuid("GPU 1 <-> 0", now), "GPU GPU-a <-> GPU-b");
  EXPECT_EQ(subject_by_uuid("host", now), "host");
  EXPECT_EQ(subject_by_uuid("GPU 7", now), "") << "a GPU the machine does not have";
}

TEST(DoctorBaseline, FiguresThatRepeatAnotherOrHaveNoBaselineAreCountedNotJudged) {
  const Machine m = two_gpus("GPU-a", "GPU-b");
  const Baseline base = of({{"pinned vs like GPUs", "GPU GPU-a", 50 * GB}});
  const std::vector<Finding> out = compare_with_baseline(
      {rate("pinned vs like GPUs", "GPU 0", 10 * GB, Worse::not_compared), rate("pinned h2d", "GPU 1", 10 * GB)}, m,
      base, 0.10);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].verdict, Verdict::ok);
  EXPECT_EQ(out[0].measured, "0 of 0 figures worse");
  EXPECT_NE(out[0].basis.find("1 of this run's figures have none there"), std::string::npos) << out[0].basis;
}

}  // namespace
}  // namespace ferry::doctor::baseline_test
