#include "bench/overlap/overlap.hpp"

#include <gtest/gtest.h>

#include "bench/plan_texts.hpp"

#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "backend/emu/emu_backend.hpp"
#include "bench/hooked_emu.hpp"
#include "bench/overlap/overlap_kernels.hpp"
#include "bench/overlap/overlap_model.hpp"
#include "bench/overlap/overlap_split.hpp"
#include "bench/row_params.hpp"
#include "cli/run_ferry.hpp"
#include "core/check.hpp"
#include "core/error.hpp"

namespace ferry::overlap {
namespace {

std::uint64_t covered(const Split& s) {
  std::uint64_t next = 0;
  for (const SubBuffer& p : s.parts) {
    EXPECT_EQ(p.first, next) << "sub-buffers follow one another with no gap or overlap";
    next += p.count;
  }
  return next;
}

TEST(OverlapSplit, EvenSplitsAreEqualAndAligned) {
  const Split s = split_vector(256ull << 20, 8, 1 << 20);
  ASSERT_EQ(s.parts.size(), 8u);
  for (const SubBuffer& p : s.parts) EXPECT_EQ(p.count, 32ull << 20);
  EXPECT_FALSE(s.clamped);
  EXPECT_EQ(covered(s), 256ull << 20);
}

TEST(OverlapSplit, AnUnevenSplitRoundsUpTo4KiBAndTheLastTakesTheRest) {
  const std::uint64_t words = (3ull << 20) + 5;  // 12 MiB + 20 B
  const Split s = split_vector(words, 3, 4096);
  ASSERT_EQ(s.parts.size(), 3u);
  EXPECT_EQ(s.parts.front().count * 4, (4ull << 20) + 4096) << "a third of 12 MiB + 20 B, rounded up to 4 KiB";
  for (std::size_t i = 0; i + 1 < s.parts.size(); ++i) EXPECT_EQ(s.parts[i].count * 4 % split_alignment_bytes, 0u);
  EXPECT_LT(s.parts.back().count, s.parts.front().count);
  EXPECT_EQ(covered(s), words);
}

TEST(OverlapSplit, TheFloorClampsManySmallSubBuffersAndSaysSo) {
  const Split s = split_vector(4ull << 20, 64, 1 << 20);  // 16 MiB: 64 parts would be 256 KiB
  EXPECT_EQ(s.parts.size(), 16u);
  EXPECT_TRUE(s.clamped);
  EXPECT_EQ(covered(s), 4ull << 20);
  EXPECT_FALSE(split_vector(4ull << 20, 16, 1 << 20).clamped) << "exactly at the floor is not clamped";
}

TEST(OverlapKernel, AddsAsInt32DoesWrappingAround) {
  const std::uint32_t a[2] = {0xFFFFFFFFu, 7}, b[2] = {2, 5};
  std::uint32_t c[2] = {0, 0};
  const VectorAdd add{a, b, c};
  add(0);
  add(1);
  EXPECT_EQ(c[0], 1u);
  EXPECT_EQ(c[1], 12u);
  EXPECT_NE(input_word(3, 0, 1), input_word(3, 1, 1)) << "a and b differ";
}

Rates rates() { return {.h2d_Bps = 10, .d2h_Bps = 10, .bidirectional_Bps = 0, .kernel_Bps = 100, .copy_latency_s = 0}; }

TEST(OverlapModel, SerialIsTheSumOfItsSteps) {
  // 1000 B vectors: 2000 B in at 10 B/s, the add at 100 B/s, 1000 B out at 10 B/s.
  EXPECT_DOUBLE_EQ(serial_time(1000, rates()).seconds, 200 + 10 + 100);
}

TEST(OverlapModel, PipelinedIsTheBusiestStagePlusOneSubBufferThroughTheOthers) {
  const Split ten = split_vector(250 * 1024, 10, 1);  // 1 MiB, 10 parts of 100 KiB (rounded to 4 KiB)
  const double B = 1024.0 * 1024, p = 4.0 * ten.parts.front().count;
  const Prediction h2d_bound = pipelined_bound(1 << 20, ten, rates());
  EXPECT_DOUBLE_EQ(h2d_bound.seconds, 2 * B / 10 + p / 100 + p / 10);
  EXPECT_NE(h2d_bound.basis.find("H2D of a and b"), std::string::npos);

  Rates slow_kernel = rates();
  slow_kernel.kernel_Bps = 1;
  const Prediction kernel_bound = pipelined_bound(1 << 20, ten, slow_kernel);
  EXPECT_DOUBLE_EQ(kernel_bound.seconds, 2 * p / 10 + B / 1 + p / 10);
  EXPECT_NE(kernel_bound.basis.find("add"), std::string::npos);

  Rates shared_link = rates();
  shared_link.bidirectional_Bps = 12;  // both ways at once barely faster than one way
  EXPECT_DOUBLE_EQ(pipelined_bound(1 << 20, ten, shared_link).seconds, 3 * B / 12);

  EXPECT_LT(pipelined_bound(1 << 20, split_vector(1 << 18, 64, 1), rates()).seconds, h2d_bound.seconds)
      << "more sub-buffers: a shorter fill and drain";
}

TEST(OverlapModel, TheSharedLinkSplitsBothWaysEvenlyWhileCReturnsThenAAndBComeInAlone) {
  Rates r = rates();
  r.bidirectional_Bps = 16;  // both ways at once: 8 B/s each, below either direction's 10 alone
  // 1000 B of c out at 8 B/s (125 s), 1000 B of a and b in meanwhile, the other 1000 B in alone at 10 B/s.
  EXPECT_DOUBLE_EQ(shared_link_time(1000, r), 125 + 100);
  r.bidirectional_Bps = 40;  // the link no limit: each direction at its own rate, c out at 10 and a, b in at 10
  EXPECT_DOUBLE_EQ(shared_link_time(1000, r), 100 + 100);
  EXPECT_EQ(shared_link_time(1000, rates()), 0) << "no both-ways rate (pageable memory): no prediction";
}

// A part in 10^12: rounding, far below any term of the model scaled by 1.1.
void expect_seconds(const Prediction& p, double expected) {
  EXPECT_NEAR(p.seconds, expected, 1e-12 * expected) << p.basis;
}

TEST(OverlapModel, SerialIsEachStepsBytesOverItsRateAndThreeCopyLatencies) {
  // 16 KiB vectors: a and b in at 16 KiB/s (2 s), the add at 4 KiB/s (4 s), c out at 2 KiB/s (8 s), and
  // three copies of 0.5 s fixed cost (1.5 s). Every term differs, so none can change unseen.
  const Rates r{.h2d_Bps = 16384, .d2h_Bps = 2048, .bidirectional_Bps = 100, .kernel_Bps = 4096, .copy_latency_s = 0.5};
  expect_seconds(serial_time(16384, r), 2 + 4 + 8 + 1.5);
}

// 16 KiB vectors in 4 sub-buffers of 4 KiB: B = 16384 bytes, p = 4096. Each case below makes one stage the
// busiest and gives every term of the bound a different size: the whole vector through the busiest stage,
// one sub-buffer through each of the other two, and the copy latency of each sub-buffer copy.
constexpr std::uint64_t vector_bytes = 16384;
Split four_sub_buffers() {
  const Split s = split_vector(vector_bytes / 4, 4, 4096);
  EXPECT_EQ(s.parts.size(), 4u);
  EXPECT_EQ(s.parts.front().count * 4, 4096u);
  return s;
}

TEST(OverlapModel, WhenH2DIsBusiestTheBoundIsBothVectorsInThenOneSubBuffersAddAndD2H) {
  // H2D of a and b: 2 x 16384 / 1024 = 32 s; then the last sub-buffer's add, 4096 / 4096 = 1 s, and its
  // D2H, 4096 / 2048 = 2 s plus its copy latency 0.25 s. (The add busiest would be 14.5 s, D2H 17.25 s,
  // both ways at once 3 x 16384 / 3072 = 16 s.)
  const Rates r{
      .h2d_Bps = 1024, .d2h_Bps = 2048, .bidirectional_Bps = 3072, .kernel_Bps = 4096, .copy_latency_s = 0.25};
  const Prediction p = pipelined_bound(vector_bytes, four_sub_buffers(), r);
  expect_seconds(p, 32 + 1 + 2 + 0.25);
  EXPECT_EQ(p.basis, "H2D of a and b + one sub-buffer's add and D2H");
}

TEST(OverlapModel, WhenTheAddIsBusiestTheBoundIsOneSubBuffersH2DThenTheWholeAddThenOneD2H) {
  // The first sub-buffer's H2D, 2 x 4096 / 4096 = 2 s plus 0.25 s; the add over the vector, 16384 / 512
  // = 32 s; the last sub-buffer's D2H, 4096 / 1024 = 4 s plus 0.25 s. (H2D busiest: 8 + 8 + 4.25 = 20.25 s;
  // D2H: 2.25 + 8 + 16 = 26.25 s.)
  const Rates r{.h2d_Bps = 4096, .d2h_Bps = 1024, .bidirectional_Bps = 3072, .kernel_Bps = 512, .copy_latency_s = 0.25};
  const Prediction p = pipelined_bound(vector_bytes, four_sub_buffers(), r);
  expect_seconds(p, 2.25 + 32 + 4.25);
  EXPECT_EQ(p.basis, "add + one sub-buffer's H2D and D2H");
}

TEST(OverlapModel, WhenD2HIsBusiestTheBoundIsOneSubBuffersH2DAndAddThenTheWholeD2H) {
  // 2 x 4096 / 4096 = 2 s plus 0.25 s in, 4096 / 2048 = 2 s of add, 16384 / 256 = 64 s out. (H2D
  // busiest: 8 + 2 + 16.25 = 26.25 s; the add: 2.25 + 8 + 16.25 = 26.5 s.)
  const Rates r{.h2d_Bps = 4096, .d2h_Bps = 256, .bidirectional_Bps = 3072, .kernel_Bps = 2048, .copy_latency_s = 0.25};
  const Prediction p = pipelined_bound(vector_bytes, four_sub_buffers(), r);
  expect_seconds(p, 2.25 + 2 + 64);
  EXPECT_EQ(p.basis, "D2H of c + one sub-buffer's H2D and add");
}

TEST(OverlapModel, WhenBothDirectionsShareTheLinkTheBoundIsThreeVectorsOverTheBidirectionalRate) {
  // a, b and c over the link both ways at once: 3 x 16384 / 384 = 128 s, past the H2D-bound 35.25 s.
  Rates r{.h2d_Bps = 1024, .d2h_Bps = 2048, .bidirectional_Bps = 384, .kernel_Bps = 4096, .copy_latency_s = 0.25};
  const Prediction p = pipelined_bound(vector_bytes, four_sub_buffers(), r);
  expect_seconds(p, 128);
  EXPECT_EQ(p.basis, "PCIe both ways: 3 x vector / bidirectional");
  r.bidirectional_Bps = 0;  // pageable memory: not measured, so no such term
  expect_seconds(pipelined_bound(vector_bytes, four_sub_buffers(), r), 35.25);
}

TEST(OverlapModel, TheLargestSubBufferFillsAndDrainsThePipeline) {
  // 4 KiB, 4 KiB and a last 2 KiB: p is the largest, 4096 bytes, not the last.
  const Split uneven = split_vector(2560, 3, 4096);
  ASSERT_EQ(uneven.parts.size(), 3u);
  ASSERT_EQ(uneven.parts.back().count * 4, 2048u);
  const Rates r{.h2d_Bps = 1024, .d2h_Bps = 2048, .bidirectional_Bps = 0, .kernel_Bps = 4096, .copy_latency_s = 0.25};
  expect_seconds(pipelined_bound(10240, uneven, r), 2 * 10240.0 / 1024 + 1 + 2 + 0.25);
}

model::DeviceProfile profile() {
  model::DeviceProfile p;
  p.h2d_Bps = p.d2h_Bps = 10e9;
  p.bidirectional_Bps = 16e9;
  p.copy_engine_latency_h2d_s = p.copy_engine_latency_d2h_s = 2e-6;
  p.device_copy_Bps = 100e9;
  return p;
}

OverlapConfig small_config() {
  OverlapConfig c;
  c.elements = (1 << 20) + 1000;  // 4 MiB and a partial last sub-buffer
  c.splits = {1, 3, 8, 64};
  c.min_split_bytes = 256 << 10;
  c.streams = 3;
  c.iterations = 2;
  c.want_trace = true;
  return c;
}

TEST(Overlap, EveryVariantPassesOnTheEmulatorWithTheModelBeside) {
  emu::EmuBackend backend;
  const OverlapConfig config = small_config();
  Progress progress("test", false);
  progress.keep_steps();
  const OverlapOutcome out = run(backend, config, profile(), progress);
  const WorkloadResult& r = out.result;
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(progress.steps_taken(), progress.steps_expected()) << "the terminal line's count must end at its total";
  EXPECT_EQ(progress.kept_steps(), texts(plan_run(config))) << "--dry-run lists the steps the run takes";

  std::map<std::string, int> variants;
  for (const Row& row : r.rows) {
    if (row.section != "variants") continue;
    EXPECT_EQ(row.check, Check::passed);
    EXPECT_EQ(row.sample_count(), 2u);
    const auto variant = std::get<std::string>(row.params.front().second);
    ++variants[variant];
    if (variant != "cpu") EXPECT_TRUE(row.model.has_value()) << variant;
  }
  EXPECT_EQ(variants["cpu"], 1);
  EXPECT_EQ(variants["serial"], 1);
  EXPECT_EQ(variants["pipelined"], 4) << "1, 3, 8 and 64 (clamped to 17) are four different splits";

  bool clamp_said = false;
  for (const auto& note : r.notes)
    clamp_said = clamp_said || note.find("k = 64: sub-buffers would be under") != std::string::npos;
  EXPECT_TRUE(clamp_said);
  EXPECT_EQ(std::count_if(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.section == "summary"; }), 1);
}

TEST(Overlap, TheTraceHasALanePerStreamAndEachChainInOrder) {
  emu::EmuBackend backend;
  OverlapConfig config = small_config();
  config.splits = {8};
  const OverlapOutcome out = run(backend, config, profile(), Progress("test", false));
  const Trace& t = out.trace;
  ASSERT_EQ(t.lanes.size(), 3u);
  ASSERT_EQ(t.boxes.size(), 4u * 8) << "8 parts (the last one short), four steps each";
  for (std::size_t i = 0; i < t.boxes.size(); i += 4) {
    for (std::size_t step = 0; step < 4; ++step) {
      const TraceBox& b = t.boxes[i + step];
      EXPECT_EQ(b.lane, static_cast<int>(i / 4 % 3));
      EXPECT_GE(b.start_s, 0);
      EXPECT_GE(b.duration_s, 0);
      if (step > 0) EXPECT_GE(b.start_s, t.boxes[i + step - 1].start_s + t.boxes[i + step - 1].duration_s - 1e-9);
    }
  }
  EXPECT_EQ(t.boxes[2].category, "kernel");
  EXPECT_EQ(t.boxes[3].name, "D2H c[0]");
}

TEST(Overlap, RefusesWhatCannotRun) {
  emu::EmuBackend backend;
  OverlapConfig c = small_config();
  c.elements = 1ull << 40;  // 12 TiB across a, b and c
  EXPECT_THROW(validate(backend, c), UsageError);
  c = small_config();
  c.device = 9;
  EXPECT_THROW(validate(backend, c), UsageError);
  c = small_config();
  c.splits = {};
  EXPECT_THROW(validate(backend, c), UsageError);
  c = small_config();
  c.streams = 0;
  EXPECT_THROW(validate(backend, c), UsageError);
}

// A 64 KiB vector in sub-buffers of at least 4 KiB: k = 32 gives the 16 of k = 16, so it is no row of its own.
OverlapConfig tiny_config() {
  OverlapConfig c;
  c.elements = 16 << 10;
  c.splits = {1, 3, 16, 32};
  c.min_split_bytes = 4 << 10;
  c.streams = 2;
  c.iterations = 2;
  return c;
}

// The name FERRY_FAULT_CORRUPT_OUTPUT gives a measured row, read off the table; empty for the summary.
std::string hook_name(const Row& row) {
  if (row.section == "kernel") return "kernel";
  if (row.section != "variants") return "";
  const auto variant = std::get<std::string>(row.params.at(0).second);
  if (variant != "pipelined") return variant;
  EXPECT_EQ(row.params.at(1).first, "splits");
  return "k=" + std::to_string(std::get<std::int64_t>(row.params.at(1).second));
}

TEST(Overlap, ACorruptedFirstSampleFailsItsRowAloneAndTheRun) {
  emu::EmuBackend backend;
  OverlapConfig config = tiny_config();
  const std::vector<std::string> rows = row_names(config);
  EXPECT_EQ(rows, (std::vector<std::string>{"kernel", "cpu", "serial", "k=1", "k=3", "k=16"}));
  for (const std::string& corrupted : rows) {
    config.corrupt_row = corrupted;
    const WorkloadResult r = run(backend, config, profile(), Progress("test", false)).result;
    EXPECT_FALSE(r.passed()) << corrupted;
    std::size_t measured = 0;
    for (const Row& row : r.rows) {
      if (row.section == "summary") continue;  // a copy of the best pipelined row, its check included
      ++measured;
      EXPECT_EQ(row.check, hook_name(row) == corrupted ? Check::failed : Check::passed)
          << corrupted << " corrupted; row " << hook_name(row);
    }
    EXPECT_EQ(measured, rows.size()) << "every row the hook can name, and no other, is measured";
  }
}

TEST(Overlap, TheCorruptionHookRefusesARowTheRunDoesNotMeasure) {
  emu::EmuBackend backend;
  OverlapConfig config = tiny_config();
  for (const char* nothing : {"k=32", "k=2", "pipelined", "Serial", "k = 1"}) {
    config.corrupt_row = nothing;
    try {
      validate(backend, config);
      ADD_FAILURE() << nothing << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(corrupt_output_variable) + "='" + nothing + "'"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("kernel, cpu, serial, k=1, k=3, k=16"), std::string::npos) << e.what();
    }
  }
}

TEST(Overlap, TheCommandExitsOneOnACorruptedRowAndTwoOnARowItDoesNotMeasure) {
  const std::vector<std::string> args = {"run",         "overlap", "--backend",    "emu",      "--quick",
                                         "-q",          "--size",  "64K",          "--splits", "1,4",
                                         "--min-split", "4K",      "--iterations", "2"};
  ::setenv(corrupt_output_variable, "k=4", 1);
  const Outcome corrupted = ferry(args);
  ::setenv(corrupt_output_variable, "k=2", 1);
  const Outcome refused = ferry(args);
  ::unsetenv(corrupt_output_variable);
  EXPECT_EQ(corrupted.code, 1) << corrupted.err;
  EXPECT_NE(corrupted.out.find("overlap: FAILED"), std::string::npos) << corrupted.out;
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("FERRY_FAULT_CORRUPT_OUTPUT='k=2'"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out.find("overlap: "), std::string::npos) << "refused before anything ran";
}

}  // namespace

namespace overlap_figures_test {
namespace {

// The variants' rows, by variant: cpu, serial, then pipelined for each k measured.
std::vector<const Row*> variant_rows(const WorkloadResult& r, const std::string& variant) {
  std::vector<const Row*> rows;
  for (const Row& row : r.rows)
    if (row.section == "variants" && text_of(row, "variant") == variant) rows.push_back(&row);
  return rows;
}

// A speedup as ratio() prints it, "0.25x": two decimals, so within half a hundredth of `expected`.
void expect_speedup(const Row& row, const std::string& key, double expected) {
  const std::string printed = text_of(row, key);
  ASSERT_TRUE(printed.ends_with("x")) << key << ": " << printed;
  EXPECT_NEAR(std::stod(printed), expected, 0.005 + 1e-9)
      << text_of(row, "variant") << " k=" << text_of(row, "splits") << ", " << key << ": " << printed;
}

// Every kernel sleeps 2 ms, so serial (one add) takes 2 ms and more while the host adds the same 64 KiB
// with no kernel at all: the cpu and serial times differ, and so do the two speedups of every row.
TEST(OverlapSpeedups, EachRowsSpeedupIsTheCpuRowsOrTheSerialRowsTimeOverItsOwn) {
  KernelsTakeAtLeast backend(std::chrono::milliseconds(2));
  const WorkloadResult r = run(backend, tiny_config(), profile(), Progress("test", false)).result;
  ASSERT_TRUE(r.passed());
  ASSERT_EQ(variant_rows(r, "cpu").size(), 1u);
  ASSERT_EQ(variant_rows(r, "serial").size(), 1u);
  const double cpu_s = variant_rows(r, "cpu").front()->value(), serial_s = variant_rows(r, "serial").front()->value();
  ASSERT_GE(serial_s, 2e-3) << "serial's add took 2 ms";
  int rows = 0;
  for (const char* variant : {"cpu", "serial", "pipelined"})
    for (const Row* row : variant_rows(r, variant)) {
      ++rows;
      expect_speedup(*row, "speedup vs cpu", cpu_s / row->value());
      expect_speedup(*row, "speedup vs serial", serial_s / row->value());
    }
  EXPECT_EQ(rows, 5) << "cpu, serial and k = 1, 3 and 16";
  EXPECT_EQ(text_of(*variant_rows(r, "cpu").front(), "speedup vs cpu"), "1.00x");
  EXPECT_EQ(text_of(*variant_rows(r, "serial").front(), "speedup vs serial"), "1.00x");
}

// Each stream's host wait returns `late` after its work is done, as a wait that sleeps until woken does:
// the stream's events mark when the work ended, the host's clock when the host saw it end.
class HostWaitsReturnLate final : public HookedEmu {
 public:
  explicit HostWaitsReturnLate(std::chrono::milliseconds late) : late_(late) {}
  void synchronized() override { std::this_thread::sleep_for(late_); }

 private:
  std::chrono::milliseconds late_;
};

// A variant's sample is host wall time from the first copy enqueued to the return of the host's final
// wait, when c is in host memory (docs/overlap.md), not the main stream's events around the work: with
// every host wait returning 10 ms after its stream is done, each serial and pipelined sample is 10 ms
// and more, however fast the copies and adds of a 64 KiB vector are.
TEST(OverlapTiming, AVariantsSampleRunsToTheReturnOfTheHostsFinalWait) {
  HostWaitsReturnLate backend(std::chrono::milliseconds(10));
  OverlapConfig config = tiny_config();
  config.splits = {1, 4};
  const WorkloadResult r = run(backend, config, profile(), Progress("test", false)).result;
  EXPECT_TRUE(r.passed());
  int rows = 0;
  for (const char* variant : {"serial", "pipelined"})
    for (const Row* row : variant_rows(r, variant)) {
      ++rows;
      EXPECT_EQ(row->sample_count(), 2u);
      EXPECT_GE(row->stats().min, 10e-3) << variant << " k=" << text_of(*row, "splits");
    }
  EXPECT_EQ(rows, 3) << "serial and k = 1 and 4";
}

}  // namespace
}  // namespace overlap_figures_test
}  // namespace ferry::overlap
