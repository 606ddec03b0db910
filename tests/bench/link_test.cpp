#include "bench/link/link.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

#include "backend/emu/emu_backend.hpp"
#include "bench/hooked_emu.hpp"
#include "bench/plan_texts.hpp"
#include "bench/row_params.hpp"
#include "cli/run_ferry.hpp"
#include "core/check.hpp"
#include "core/error.hpp"

namespace ferry::link {
namespace {

LinkConfig quick_config(const Backend& backend) {
  LinkConfig c = LinkConfig::defaults(backend.capabilities(), true);
  c.flag_round_trips = 500;
  return c;
}

// Every step's text, from a run of `config`, beside its plan's.
void expect_the_plan_is_the_run(Backend& backend, const LinkConfig& config) {
  Progress progress("link", false);
  progress.keep_steps();
  const LinkOutcome out = run(backend, backend.describe_machine(), config, progress);
  EXPECT_TRUE(out.result.passed());
  const Plan plan = plan_run(backend, config);
  EXPECT_EQ(progress.kept_steps(), texts(plan)) << "--dry-run and the progress total list the steps the run takes";
  EXPECT_EQ(progress.steps_expected(), progress.steps_taken());
}

TEST(Link, ThePlanListsTheStepsEveryKindOfRunTakes) {
  emu::EmuBackend backend;
  LinkConfig quick = quick_config(backend);
  quick.devices = {0, 1};
  expect_the_plan_is_the_run(backend, quick);
  LinkConfig full = LinkConfig::defaults(backend.capabilities(), false);
  full.sweep_bytes = {4096, 1000, 65536};  // 1000 B is no multiple of 16: no zero-copy step
  full.loaded_teams = {1, 3, 8, 16};       // the emulator holds 4 teams: 8 and 16 clamp to 3, which ran
  full.flag_round_trips = 500;
  expect_the_plan_is_the_run(backend, full);
  expect_the_plan_is_the_run(backend, LinkConfig::for_models(backend.capabilities(), 1, true));
  expect_the_plan_is_the_run(backend, LinkConfig::for_peers(backend.capabilities(), {0, 2, 3}));
}

TEST(Link, EverySectionIsMeasuredAndEveryCopyPassesOnTheEmulator) {
  emu::EmuBackend backend;
  LinkConfig config = quick_config(backend);
  config.devices = {0, 1};
  const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
  std::set<std::string> sections;
  for (const Row& r : out.result.rows) sections.insert(r.section);
  EXPECT_EQ(sections, (std::set<std::string>{"bandwidth", "zero_copy", "zero_copy_load", "copy_latency", "dispatch",
                                             "flag", "copy_queue", "device_copy", "peer_bandwidth", "peer_latency",
                                             "peer_bidirectional", "peer_sm", "peer_flag", "ceiling"}));
  EXPECT_TRUE(out.result.passed());
  for (const Row& r : out.result.rows) {
    EXPECT_FALSE(r.seconds.empty());
    if (r.section != "dispatch") EXPECT_EQ(r.check, Check::passed) << r.section;
  }
}

TEST(Link, TheSweepCoversEveryMemoryKindDirectionAndSize) {
  emu::EmuBackend backend;
  const LinkConfig config = quick_config(backend);
  const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
  const auto bandwidth_rows = std::count_if(out.result.rows.begin(), out.result.rows.end(),
                                            [](const Row& r) { return r.section == "bandwidth"; });
  EXPECT_EQ(bandwidth_rows, static_cast<long>(3 * 3 * config.sweep_bytes.size()));
}

// The row whose "what" is `what`, or null.
const Row* row_doing(const WorkloadResult& result, const std::string& what) {
  for (const Row& r : result.rows)
    for (const auto& [key, value] : r.params)
      if (key == "what" && std::get<std::string>(value) == what) return &r;
  return nullptr;
}

// Two medians of a noisy host clock: a fenced echo no slower than the plain one measured no cost, not a negative one.
TEST(Link, AFenceNoSlowerThanThePlainEchoIsWithinTheNoiseNotANegativeCost) {
  EXPECT_EQ(fence_cost_note(2e-6, 2.5e-6), "+0.50 us over the plain echo: the fence");
  for (const double fenced_s : {2e-6, 1.9e-6, 2e-6 - 3998.13e-6}) {
    const std::string note = fence_cost_note(2e-6, fenced_s);
    EXPECT_NE(note.find("within the noise of the plain echo"), std::string::npos) << note;
    EXPECT_EQ(note.find('-'), std::string::npos) << note;
    EXPECT_EQ(note.find("over the plain echo"), std::string::npos) << note;
  }
}

TEST(Link, ThePlainEchoAndTheEchoBehindAReleaseFenceAreEachVerifiedAndInTheProfile) {
  emu::EmuBackend backend;
  const LinkOutcome out = run(backend, backend.describe_machine(), quick_config(backend), Progress("link", false));
  const Row* plain = row_doing(out.result, "doorbell -> echo seen by the host");
  const Row* fenced = row_doing(out.result, "doorbell -> echo behind a system release fence");
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(fenced, nullptr);
  for (const Row* echo : {plain, fenced}) {
    EXPECT_EQ(echo->section, "flag");
    EXPECT_EQ(echo->check, Check::passed);
    EXPECT_EQ(echo->seconds.size(), 500u) << "a sample per round trip";
    EXPECT_NE(echo->note.find("every echo matched its sequence number"), std::string::npos) << echo->note;
  }
  EXPECT_NE(fenced->note.find(fence_cost_note(plain->stats().median, fenced->stats().median)), std::string::npos)
      << fenced->note;
  EXPECT_DOUBLE_EQ(out.profile.device(0).flag_round_trip_s, plain->stats().median);
  EXPECT_DOUBLE_EQ(out.profile.device(0).flag_round_trip_release_s, fenced->stats().median);
}

TEST(Link, TheChunkRoundTripCopiesAFreshChunkEachRingChecksEveryByteAndIsInTheProfile) {
  emu::EmuBackend backend;
  const LinkOutcome out = run(backend, backend.describe_machine(), quick_config(backend), Progress("link", false));
  const Row* chunk = row_doing(out.result, "doorbell -> 4 KiB read and written back, echo behind a release");
  ASSERT_NE(chunk, nullptr);
  EXPECT_EQ(chunk->section, "flag");
  EXPECT_EQ(chunk->check, Check::passed);
  EXPECT_EQ(chunk->seconds.size(), 500u) << "a sample per round trip";
  EXPECT_EQ(chunk->note, "every echo matched its sequence number; every byte of the 600 chunks checked")
      << "100 warm-up rings and 500 timed, a chunk each";
  EXPECT_DOUBLE_EQ(out.profile.device(0).chunk_echo_s, chunk->stats().median);
}

TEST(Link, TheGraphRoundTripIsASampleForEveryLaunchWhoseWordCameBack) {
  emu::EmuBackend backend;
  const LinkConfig config = quick_config(backend);
  const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
  const auto graph = std::find_if(out.result.rows.begin(), out.result.rows.end(), [](const Row& r) {
    for (const auto& [key, value] : r.params)
      if (key == "what" && std::get<std::string>(value).starts_with("graph launch -> flag seen")) return true;
    return false;
  });
  ASSERT_NE(graph, out.result.rows.end());
  EXPECT_EQ(graph->check, Check::passed);
  EXPECT_EQ(graph->seconds.size(), static_cast<std::size_t>(config.graph_round_trips));
  EXPECT_DOUBLE_EQ(out.profile.device(0).graph_chunk_round_trip_s, graph->stats().median);
}

TEST(Link, TheProfileHoldsTheCeilingsTheModelsRead) {
  emu::EmuBackend backend;
  const LinkOutcome out = run(backend, backend.describe_machine(), quick_config(backend), Progress("link", false));
  const model::DeviceProfile& d = out.profile.device(0);
  EXPECT_EQ(out.profile.backend, "emu");
  EXPECT_FALSE(out.profile.gpu_timings);
  for (double v :
       {d.h2d_Bps, d.d2h_Bps, d.bidirectional_Bps, d.zero_copy_read_Bps, d.copy_latency_h2d_s, d.launch_and_sync_s,
        d.launch_per_kernel_s, d.graph_per_kernel_s, d.sync_wakeup_s, d.flag_round_trip_s, d.device_copy_Bps,
        d.zero_copy_both_Bps, d.mapped_read_latency_s, d.grid_barrier_s, d.cluster_barrier_s,
        d.dependent_graph_per_kernel_s, d.graph_chunk_round_trip_s, d.flag_round_trip_release_s, d.chunk_echo_s})
    EXPECT_GT(v, 0);
  EXPECT_EQ(d.programmatic_graph_per_kernel_s, 0) << "the emulator has no programmatic launch";
  EXPECT_EQ(d.dependent_programmatic_graph_per_kernel_s, 0);
}

TEST(Link, AGridOrClusterBarrierIsTimedOnlyWhenEveryTeamSawTheOthersArrive) {
  emu::EmuBackend backend;
  const LinkOutcome out = run(backend, backend.describe_machine(), quick_config(backend), Progress("link", false));
  for (const std::string barrier_of : {"grid barrier, ", "cluster barrier, 16 teams"}) {
    const auto barrier = std::find_if(out.result.rows.begin(), out.result.rows.end(), [&](const Row& r) {
      for (const auto& [key, value] : r.params)
        if (key == "what" && std::get<std::string>(value).find(barrier_of) != std::string::npos) return true;
      return false;
    });
    ASSERT_NE(barrier, out.result.rows.end()) << barrier_of;
    EXPECT_EQ(barrier->check, Check::passed) << barrier_of;
  }
  EXPECT_NE(std::find_if(out.result.skipped.begin(), out.result.skipped.end(),
                         [](const std::string& s) { return s.find("programmatic edges") != std::string::npos; }),
            out.result.skipped.end());
}

TEST(Link, DependentKernelsAreTimedOnlyWhenEachSawThePreviousOnesWrite) {
  emu::EmuBackend backend;
  const LinkOutcome out = run(backend, backend.describe_machine(), quick_config(backend), Progress("link", false));
  const auto dependent = std::find_if(out.result.rows.begin(), out.result.rows.end(), [](const Row& r) {
    for (const auto& [key, value] : r.params)
      if (key == "what" && std::get<std::string>(value) == "graph replay, dependent kernels of 128 KiB, per kernel")
        return true;
    return false;
  });
  ASSERT_NE(dependent, out.result.rows.end());
  EXPECT_EQ(dependent->check, Check::passed) << "every word reached the chain's length";
  EXPECT_NE(dependent->note.find("the empty kernels'"), std::string::npos) << dependent->note;
}

TEST(Link, QueuedCopiesGiveATimePerCopyForEverySizeAndDirection) {
  emu::EmuBackend backend;
  const LinkConfig config = quick_config(backend);
  const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
  const model::DeviceProfile& d = out.profile.device(0);
  for (const auto* series : {&d.queued_h2d, &d.queued_d2h, &d.queued_both_ways}) {
    ASSERT_EQ(series->size(), config.queued_copy_bytes.size());
    for (std::size_t i = 0; i < series->size(); ++i) {
      EXPECT_EQ((*series)[i].bytes, config.queued_copy_bytes[i]);
      EXPECT_GT((*series)[i].seconds, 0);
    }
  }
  const auto rows = std::count_if(out.result.rows.begin(), out.result.rows.end(),
                                  [](const Row& r) { return r.section == "copy_queue" && r.check == Check::passed; });
  EXPECT_EQ(rows, static_cast<long>(3 * config.queued_copy_bytes.size())) << "h2d, d2h and both at once, each verified";
}

TEST(Link, UnderLoadEachTeamCountGivesAVerifiedRateAndTheRoundTripOfAReadMeanwhile) {
  emu::EmuBackend backend;
  LinkConfig config = quick_config(backend);
  config.loaded_teams = {1, 3, 8};  // the emulator holds 4 teams: 8 runs as 3, already measured
  const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
  const auto& loads = out.profile.device(0).zero_copy_under_load;
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].teams, 1);
  EXPECT_EQ(loads[1].teams, 3);
  for (const auto& l : loads) {
    EXPECT_GT(l.Bps, 0);
    EXPECT_GT(l.read_round_trip_s, 0);
  }
  std::vector<const Row*> rows;
  for (const Row& r : out.result.rows)
    if (r.section == "zero_copy_load") rows.push_back(&r);
  ASSERT_EQ(rows.size(), 2u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]->check, Check::passed) << "every byte copied and the timed chain ended where the host's did";
    EXPECT_NE(rows[i]->note.find("round trip meanwhile"), std::string::npos);
    EXPECT_DOUBLE_EQ(loads[i].Bps, rows[i]->value()) << "the profile holds the row's rate, bytes per second";
  }
}

// docs/link.md's model, row by row, on a machine that reports a PCIe Gen4 x8 link and 1000 GB/s of
// memory: a transfer is the same run's smallest copy's latency + bytes / the PCIe rate. The latencies are
// the emulator's, whatever they are; the model must hold each term of its formula.
TEST(Link, EachRowsModelIsTheSmallestCopysLatencyPlusBytesOverThePcieRate) {
  emu::EmuBackend backend;
  Machine machine = backend.describe_machine();
  machine.gpus.at(0).pcie.max_generation = 4;
  machine.gpus.at(0).pcie.max_width = 8;
  machine.gpus.at(0).memory_bandwidth_Bps = 1000e9;
  LinkConfig config = quick_config(backend);
  config.loaded_teams = {};
  const LinkOutcome out = run(backend, machine, config, Progress("link", false));
  const double pcie = 16e9 * 128 / 130 * 8 / 8;
  const model::DeviceProfile& d = out.profile.device(0);
  ASSERT_GT(d.copy_engine_latency_h2d_s, 0);
  ASSERT_GT(d.copy_engine_latency_d2h_s, 0);
  const auto expect_model = [](const Row& row, double expected) {
    ASSERT_TRUE(row.model.has_value()) << row.section;
    EXPECT_NEAR(*row.model, expected, 1e-12 * expected) << row.section << " " << row.model_basis;
  };
  std::set<std::string> modelled;
  for (const Row& row : out.result.rows) {
    const std::string& section = row.section;
    if (section == "bandwidth") {
      const auto bytes = static_cast<double>(std::get<std::int64_t>(param(row, "bytes")));
      const std::string direction = text_of(row, "direction");
      const double latency = direction == "h2d"   ? d.copy_engine_latency_h2d_s
                             : direction == "d2h" ? d.copy_engine_latency_d2h_s
                                                  : std::max(d.copy_engine_latency_h2d_s, d.copy_engine_latency_d2h_s);
      expect_model(row, (direction == "bidir" ? 2 : 1) * bytes / (latency + bytes / pcie));
    } else if (section == "zero_copy") {
      const auto bytes = static_cast<double>(std::get<std::int64_t>(param(row, "bytes")));
      const double latency =
          text_of(row, "direction") == "d2h" ? d.copy_engine_latency_d2h_s : d.copy_engine_latency_h2d_s;
      expect_model(row, bytes / (latency + bytes / pcie));
    } else if (section == "copy_latency") {
      const std::int64_t bytes = std::get<std::int64_t>(param(row, "bytes"));
      if (bytes == static_cast<std::int64_t>(config.latency_bytes.front())) {
        EXPECT_FALSE(row.model.has_value()) << "the smallest copy is the latency the others' models read";
        continue;
      }
      const bool h2d = text_of(row, "direction") == "h2d";
      const double smallest = text_of(row, "clock").starts_with("host")
                                  ? (h2d ? d.copy_latency_h2d_s : d.copy_latency_d2h_s)
                                  : (h2d ? d.copy_engine_latency_h2d_s : d.copy_engine_latency_d2h_s);
      expect_model(row, smallest + static_cast<double>(bytes) / pcie);
    } else if (section == "ceiling" || section == "copy_queue") {
      expect_model(row, (text_of(row, "direction") == "bidir" ? 2 : 1) * pcie);
    } else if (section == "device_copy") {
      expect_model(row, 1000e9 / 2);
    } else {
      continue;
    }
    modelled.insert(section);
  }
  EXPECT_EQ(modelled,
            (std::set<std::string>{"bandwidth", "zero_copy", "copy_latency", "ceiling", "copy_queue", "device_copy"}));
}

// docs/link.md: a ceiling is, for each memory kind, path and direction, the row with the best median
// over the size sweep; the profile the other workloads' models read holds that figure. The emulator's
// 4 KiB, 64 KiB and 1 MiB copies move at rates of their own, so the sweep's worst row is another row.
TEST(Link, EachCeilingIsTheFastestRowOfItsSeriesOverTheSweepAndTheProfileHoldsIt) {
  emu::EmuBackend backend;
  const LinkConfig config = quick_config(backend);
  ASSERT_EQ(config.sweep_bytes.size(), 3u);
  const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
  const model::DeviceProfile& d = out.profile.device(0);
  // The profile's field each ceiling fills; the series the models do not read fill none.
  const std::map<std::string, double> profile_of = {
      {"copy engine pinned h2d", d.h2d_Bps},
      {"copy engine pinned d2h", d.d2h_Bps},
      {"copy engine pinned bidir", d.bidirectional_Bps},
      {"copy engine pageable h2d", d.pageable_h2d_Bps},
      {"copy engine pageable d2h", d.pageable_d2h_Bps},
      {"zero-copy kernel mapped h2d", d.zero_copy_read_Bps},
      {"zero-copy kernel mapped d2h", d.zero_copy_write_Bps},
      {"zero-copy kernel mapped both, per direction", d.zero_copy_both_Bps},
  };
  std::size_t ceilings = 0, in_the_profile = 0;
  for (const Row& ceiling : out.result.rows) {
    if (ceiling.section != "ceiling") continue;
    ++ceilings;
    const bool zero_copy = text_of(ceiling, "path") == "zero-copy kernel";
    const std::string series =
        text_of(ceiling, "path") + " " + text_of(ceiling, "memory") + " " + text_of(ceiling, "direction");
    std::vector<const Row*> sweep;
    for (const Row& r : out.result.rows)
      if (r.section == (zero_copy ? "zero_copy" : "bandwidth") && text_of(r, "device") == text_of(ceiling, "device") &&
          text_of(r, "direction") == text_of(ceiling, "direction") &&
          (zero_copy || text_of(r, "memory") == text_of(ceiling, "memory")))
        sweep.push_back(&r);
    ASSERT_EQ(sweep.size(), config.sweep_bytes.size()) << series;
    const Row* fastest = *std::max_element(sweep.begin(), sweep.end(),
                                           [](const Row* a, const Row* b) { return a->value() < b->value(); });
    EXPECT_DOUBLE_EQ(ceiling.value(), fastest->value()) << series << ": the best median of the sweep";
    EXPECT_EQ(ceiling.seconds, fastest->seconds) << series;
    EXPECT_EQ(text_of(ceiling, "best at bytes"), text_of(*fastest, "bytes")) << series << ": names the fastest size";
    if (const auto field = profile_of.find(series); field != profile_of.end()) {
      ++in_the_profile;
      EXPECT_DOUBLE_EQ(field->second, ceiling.value()) << series << ": the profile holds the ceiling";
    }
  }
  EXPECT_EQ(ceilings, 3u * 3 + 3) << "three memory kinds by three directions through the copy engine, and zero-copy's";
  EXPECT_EQ(in_the_profile, profile_of.size());
}

// Every kernel sleeps 2 ms before its work, so a sample of 8 kernels takes 16 ms and more, and one
// launch and sync 2 ms and more. A per-kernel row is its sample's time over its 8 kernels: at least the
// 2 ms each kernel took, and (whatever the launches cost) well short of a whole sample's 8 x 2 ms over
// one launch and sync.
TEST(Link, EachPerKernelDispatchRowIsItsSampleOverItsKernels) {
  const std::chrono::milliseconds each(2);
  KernelsTakeAtLeast backend(each);
  LinkConfig config = quick_config(backend);
  config.host_memory = {MemoryKind::pinned};
  config.sweep_bytes = {4096};
  config.latency_bytes = config.queued_copy_bytes = {};
  config.loaded_teams = {};
  config.device_copy_bytes = 0;
  config.kernels_per_sample = 8;
  config.flag_round_trips = config.graph_round_trips = 20;
  config.latency_repeat = config.dispatch_repeat = config.bandwidth_repeat = Repeat{1, 3, 3, 0};
  const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
  const double one_launch_s = out.profile.device(0).launch_and_sync_s;
  ASSERT_GE(one_launch_s, 2e-3);
  int per_kernel_rows = 0;
  for (const Row& row : out.result.rows) {
    if (row.section != "dispatch" || !text_of(row, "what").ends_with("per kernel")) continue;
    ++per_kernel_rows;
    EXPECT_EQ(text_of(row, "kernels per sample"), "8");
    EXPECT_GE(row.stats().min, 2e-3) << text_of(row, "what") << ": each kernel took 2 ms";
    EXPECT_LT(row.stats().median, 4 * one_launch_s) << text_of(row, "what") << ": a sample of 8 kernels is 8 x 2 ms";
  }
  EXPECT_GE(per_kernel_rows, 3) << "stream launches, graph replay and a dependent chain";
}

TEST(Link, OnePeerPairNeedsTwoDevicesAndSaysSo) {
  emu::EmuBackend backend;
  const LinkOutcome out = run(backend, backend.describe_machine(), quick_config(backend), Progress("link", false));
  ASSERT_FALSE(out.result.skipped.empty());
  EXPECT_NE(out.result.skipped.back().find("needs 2 devices"), std::string::npos);
}

// The rows of a run whose check FAILED; every other row PASSED or has no check.
std::vector<const Row*> failed_rows(const WorkloadResult& result) {
  std::vector<const Row*> failed;
  for (const Row& r : result.rows)
    if (r.check == Check::failed) failed.push_back(&r);
  return failed;
}

LinkOutcome run_corrupting(const std::string& section, LinkConfig config) {
  emu::EmuBackend backend;
  config.corrupt_section = section;
  return run(backend, backend.describe_machine(), config, Progress("link", false));
}

TEST(Link, ACopyCorruptedAfterItArrivedFailsItsRowAndTheCeilingTakenFromItAlone) {
  emu::EmuBackend backend;
  LinkConfig config = quick_config(backend);
  config.sweep_bytes = {65536};  // one size: the pinned h2d ceiling is that row's
  const LinkOutcome out = run_corrupting("bandwidth", config);
  EXPECT_FALSE(out.result.passed());
  const auto first = std::find_if(out.result.rows.begin(), out.result.rows.end(),
                                  [](const Row& r) { return r.section == "bandwidth"; });
  ASSERT_NE(first, out.result.rows.end());
  const std::vector<const Row*> failed = failed_rows(out.result);
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0], &*first) << "the first bandwidth row: pinned, h2d";
  EXPECT_EQ(failed[1]->section, "ceiling");
  EXPECT_EQ(failed[1]->seconds, first->seconds) << "the ceiling is that row's figure, and its check";
}

TEST(Link, AWrongEchoFailsThePlainEchosRowAloneAndIsCounted) {
  emu::EmuBackend backend;
  const LinkOutcome out = run_corrupting("flag", quick_config(backend));
  EXPECT_FALSE(out.result.passed());
  const std::vector<const Row*> failed = failed_rows(out.result);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0], row_doing(out.result, "doorbell -> echo seen by the host"));
  EXPECT_EQ(failed[0]->note, "1 of 600 echoes carried a wrong number") << "100 warm-up round trips and 500 timed";
  EXPECT_EQ(failed[0]->seconds.size(), 500u) << "the run went on after the wrong echo";
}

TEST(Link, AWrongWordInOneEchoedChunkFailsTheChunkRowAloneAndIsCounted) {
  emu::EmuBackend backend;
  LinkConfig config = quick_config(backend);
  config.corrupt_section = "flag";
  config.corrupt_row = 4;  // the echoes, the read chain, then the chunk
  const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
  EXPECT_FALSE(out.result.passed());
  const std::vector<const Row*> failed = failed_rows(out.result);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0], row_doing(out.result, "doorbell -> 4 KiB read and written back, echo behind a release"));
  EXPECT_EQ(failed[0]->note, "0 wrong echoes, 1 wrong 8-byte words in the 600 chunks");
}

TEST(Link, AWrongWordAtAChainsEndFailsThatChainsRowAlone) {
  emu::EmuBackend backend;
  const LinkOutcome out = run_corrupting("dispatch", quick_config(backend));
  EXPECT_FALSE(out.result.passed());
  const std::vector<const Row*> failed = failed_rows(out.result);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0], row_doing(out.result, "graph replay, dependent kernels of 128 KiB, per kernel"));
}

// The hook names each checked row of a section in turn (SECTION@N): each one,
// and only it, FAILED, so every check of the chains, the echoes and the peer
// flags is seen failing, not only the first of its section.
TEST(Link, EveryCheckedRowOfASectionFailsWhenTheHookNamesItByItsPlace) {
  emu::EmuBackend backend;
  struct Case {
    std::string section;
    std::vector<int> devices;
    std::size_t checked_rows;
  };
  for (const Case& c : {Case{"dispatch", {0}, 4}, Case{"flag", {0}, 4}, Case{"peer_flag", {0, 1}, 1}}) {
    LinkConfig config = quick_config(backend);
    config.flag_round_trips = 100;
    // The fewest copies around the sections under test: they take most of a run's time.
    config.sweep_bytes = {64 << 10};
    config.host_memory = {MemoryKind::pinned};
    config.latency_bytes = {8};
    config.queued_copy_bytes = {};
    config.loaded_teams = {};
    config.devices = c.devices;
    config.per_device = c.devices.size() == 1;  // the peer rows alone for two devices
    config.corrupt_section = c.section;
    std::set<std::size_t> failed_places;  // each failed row's place among its section's rows
    for (int n = 1; n <= static_cast<int>(c.checked_rows); ++n) {
      config.corrupt_row = n;
      const LinkOutcome out = run(backend, backend.describe_machine(), config, Progress("link", false));
      std::vector<const Row*> failed;
      for (const Row* row : failed_rows(out.result))
        if (row->section != "ceiling") failed.push_back(row);
      ASSERT_EQ(failed.size(), 1u) << c.section << "@" << n;
      EXPECT_EQ(failed[0]->section, c.section) << c.section << "@" << n;
      std::size_t place = 0;
      for (const Row& row : out.result.rows) {
        if (&row == failed[0]) break;
        place += row.section == c.section;
      }
      failed_places.insert(place);
    }
    EXPECT_EQ(failed_places.size(), c.checked_rows) << c.section << ": each N names another row";
    config.corrupt_row = static_cast<int>(c.checked_rows) + 1;
    try {
      run(backend, backend.describe_machine(), config, Progress("link", false));
      ADD_FAILURE() << c.section << ": a row past the last was not refused";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("this run has {} checked {} row", c.checked_rows, c.section)),
                std::string::npos)
          << e.what();
    }
  }
}

// `ferry run link --quick` on the emulator with the hook set to `value`.
Outcome run_link_corrupting(const char* value) {
  ::setenv(corrupt_output_variable, value, 1);
  Outcome o = ferry({"run", "link", "--backend", "emu", "--quick", "-q"});
  ::unsetenv(corrupt_output_variable);
  return o;
}

TEST(Link, TheCommandExitsOneWhenACopyAFlagEchoOrAChainIsCorrupted) {
  for (const char* section : {"bandwidth", "flag", "dispatch"}) {
    const Outcome o = run_link_corrupting(section);
    EXPECT_EQ(o.code, 1) << section << ": " << o.err;
    EXPECT_NE(o.out.find("link: FAILED"), std::string::npos) << section;
  }
}

TEST(Link, TheHookRefusesWhatNamesNoCheckedSectionOfTheRun) {
  Outcome o = run_link_corrupting("ceiling");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("FERRY_FAULT_CORRUPT_OUTPUT='ceiling' names no checked section of link's table: choose one of "
                       "copy_latency, dispatch, flag, bandwidth"),
            std::string::npos)
      << o.err;
  o = run_link_corrupting("peer_bandwidth");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("FERRY_FAULT_CORRUPT_OUTPUT='peer_bandwidth': this run measures no peer_bandwidth rows: they "
                       "need 2 devices"),
            std::string::npos)
      << o.err;
}

TEST(Link, BadConfigsAreUsageErrors) {
  emu::EmuBackend backend;
  LinkConfig config = quick_config(backend);
  config.devices = {9};
  EXPECT_THROW(validate(backend, config), UsageError);
  config.devices = {0, 0};
  EXPECT_THROW(validate(backend, config), UsageError);
  config.devices = {0};
  config.sweep_bytes = {1ull << 50};
  EXPECT_THROW(validate(backend, config), UsageError);
}

}  // namespace
}  // namespace ferry::link
