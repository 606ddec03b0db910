// topo on the emulator's 4 devices: every topology forms, runs and is checked
// round by round; a topology the devices cannot form is named, not run
// twice; a corrupted round fails with its size and round named; the peaks
// come from what the machine reports.
#include "bench/topo/topo.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bench/plan_texts.hpp"
#include "bench/row_params.hpp"

#include <algorithm>

#include "backend/emu/emu_backend.hpp"
#include "backend/select.hpp"
#include "bench/topo/topo_run.hpp"
#include "cli/cli.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry::topo {
namespace {

using transport::Kind;
using transport::Pattern;

TopoConfig quick(const Backend& backend, std::vector<int> devices) {
  TopoConfig c = TopoConfig::defaults(backend.capabilities(), true);
  c.transports = {Kind::p2p_ce, Kind::p2p_sm};
  c.devices = std::move(devices);
  c.sizes = {1000, 4096, 65537};
  c.matrix_bytes = 64 << 10;
  c.rounds = 3;
  return c;
}

std::vector<const Row*> rows_of(const WorkloadResult& r, const std::string& section, const std::string& topology = "") {
  std::vector<const Row*> rows;
  for (const Row& row : r.rows)
    if (row.section == section && (topology.empty() || text_of(row, "topology") == topology)) rows.push_back(&row);
  return rows;
}

bool skipped(const WorkloadResult& r, const std::string& what) {
  return std::any_of(r.skipped.begin(), r.skipped.end(),
                     [&](const std::string& s) { return s.find(what) != std::string::npos; });
}

TEST(Topo, EveryTopologyOfFourDevicesRunsAndEveryRoundIsChecked) {
  emu::EmuBackend backend;
  const TopoConfig config = quick(backend, {0, 1, 2, 3});
  Progress progress("topo", false);
  progress.keep_steps();
  const WorkloadResult r = run(backend, world(), backend.describe_machine(), config, {}, progress);
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(progress.steps_taken(), progress.steps_expected()) << "the terminal line's count must end at its total";
  EXPECT_EQ(progress.kept_steps(), texts(plan_run(backend, world(), backend.describe_machine(), config)))
      << "--dry-run lists the steps the run takes";
  for (const std::string topology : {"pair one-way", "pair both", "ring", "fully-connected"}) {
    // Each size on each of the two direct transports, with a sample per round.
    const auto rows = rows_of(r, "bandwidth", topology);
    ASSERT_EQ(rows.size(), 2 * config.sizes.size()) << topology;
    for (const Row* row : rows) {
      EXPECT_EQ(row->check, Check::passed) << topology;
      EXPECT_EQ(row->sample_count(), 3u);
      EXPECT_GT(row->value(), 0);
    }
    EXPECT_EQ(rows_of(r, "peak", topology).size(), 2u) << topology;
  }
  // Fully-connected sends to 3 peers a round: each row counts all three messages.
  const Row* fc = rows_of(r, "bandwidth", "fully-connected").front();
  EXPECT_DOUBLE_EQ(fc->bytes_per_sample, 3.0 * 1000);
  EXPECT_EQ(text_of(*fc, "devices"), "0,1,2,3");
  EXPECT_EQ(text_of(*rows_of(r, "bandwidth", "pair one-way").front(), "devices"), "0,1");
  // The host path, with its own step measured and its ratio to the direct path.
  const auto staged = rows_of(r, "bandwidth", "host-staged");
  ASSERT_EQ(staged.size(), config.sizes.size());
  EXPECT_EQ(text_of(*staged.front(), "transport"), "host-staged");
  ASSERT_EQ(rows_of(r, "host").size(), 1u);
  EXPECT_EQ(rows_of(r, "host").front()->check, Check::passed);
  EXPECT_EQ(text_of(*rows_of(r, "peak", "host-staged").front(), "compared with"), "fully-connected by p2p-ce");
  // Every ordered pair, per transport, bandwidth and latency.
  EXPECT_EQ(rows_of(r, "matrix").size(), 2u * 12);
  EXPECT_EQ(rows_of(r, "matrix-latency").size(), 2u * 12);
}

TEST(Topo, TwoDevicesNameTheRingAndFullyConnectedAsThePair) {
  emu::EmuBackend backend;
  TopoConfig config = quick(backend, {1, 3});
  config.topologies = {Topology::pair, Topology::ring, Topology::fully_connected};
  config.transports = {Kind::p2p_ce};
  const WorkloadResult r = run(backend, world(), backend.describe_machine(), config, {}, Progress("topo", false));
  EXPECT_TRUE(r.passed());
  EXPECT_TRUE(skipped(r, "ring: ring of 2 devices is the pair both ways"));
  EXPECT_TRUE(skipped(r, "fully-connected: fully-connected of 2 devices is the pair both ways"));
  EXPECT_TRUE(rows_of(r, "bandwidth", "ring").empty());
  EXPECT_EQ(rows_of(r, "bandwidth", "pair both").size(), config.sizes.size());
  EXPECT_EQ(text_of(*rows_of(r, "bandwidth", "pair both").front(), "devices"), "1,3");
}

TEST(Topo, TheProgressCountEndsAtItsTotalWhenSomeTransportsCannotRun) {
  // nccl and the MPI transports cannot run in one emulated process: their steps leave the total.
  emu::EmuBackend backend;
  TopoConfig config = quick(backend, {0, 1});
  config.transports.clear();
  for (Kind kind : transport::all_kinds())
    if (!transport::through_host(kind)) config.transports.push_back(kind);  // those are a topology of their own
  const Progress progress("topo", false);
  const WorkloadResult r = run(backend, world(), backend.describe_machine(), config, {}, progress);
  EXPECT_TRUE(r.passed());
  EXPECT_TRUE(skipped(r, "nccl: "));
  EXPECT_GT(progress.steps_taken(), 0u);
  EXPECT_EQ(progress.steps_taken(), progress.steps_expected());
}

TEST(Topo, ACorruptedRoundFailsItsSizeAndNamesTheRound) {
  emu::EmuBackend backend;
  TopoConfig config = quick(backend, {0, 1, 2});
  config.topologies = {Topology::ring, Topology::fully_connected};
  config.transports = {Kind::p2p_ce};
  parse_corruption("4096@2", config);
  const WorkloadResult r = run(backend, world(), backend.describe_machine(), config, {}, Progress("topo", false));
  EXPECT_FALSE(r.passed());
  for (const std::string topology : {"ring", "fully-connected"}) {
    for (const Row* row : rows_of(r, "bandwidth", topology)) {
      const bool corrupted = text_of(*row, "bytes") == "4096";
      EXPECT_EQ(row->check, corrupted ? Check::failed : Check::passed) << topology << " " << text_of(*row, "bytes");
      if (corrupted) EXPECT_NE(row->note.find("4 KiB: round 2 of 3"), std::string::npos) << row->note;
    }
    EXPECT_EQ(rows_of(r, "peak", topology).front()->check, Check::failed);
  }
}

// Every round is checked, the last as much as the first: a byte corrupted in the last round fails its size and
// the row names that round.
TEST(Topo, ACorruptedLastRoundFailsItsSizeAndNamesTheRound) {
  emu::EmuBackend backend;
  TopoConfig config = quick(backend, {0, 1});
  config.topologies = {Topology::pair};
  config.transports = {Kind::p2p_ce};
  config.rounds = 3;
  parse_corruption("4096@3", config);
  const WorkloadResult r = run(backend, world(), backend.describe_machine(), config, {}, Progress("topo", false));
  EXPECT_FALSE(r.passed());
  for (const std::string topology : {"pair one-way", "pair both"}) {
    const auto rows = rows_of(r, "bandwidth", topology);
    ASSERT_EQ(rows.size(), config.sizes.size()) << topology;
    for (const Row* row : rows) {
      const bool corrupted = text_of(*row, "bytes") == "4096";
      EXPECT_EQ(row->check, corrupted ? Check::failed : Check::passed) << topology << " " << text_of(*row, "bytes");
      if (corrupted) EXPECT_NE(row->note.find("4 KiB: round 3 of 3 arrived wrong"), std::string::npos) << row->note;
    }
  }
}

TEST(Topo, TheCorruptionHookRefusesARoundTheRunDoesNotHave) {
  emu::EmuBackend backend;
  TopoConfig c = quick(backend, {0, 1});
  c.rounds = 3;
  parse_corruption("4K", c);
  EXPECT_EQ(c.corrupt_round, 0) << "without @, the first round";
  parse_corruption("4K@3", c);
  EXPECT_EQ(c.corrupt_round, 2);
  EXPECT_NO_THROW(validate(backend, c, 2));
  // It would corrupt nothing, and a test of it would pass unseen.
  parse_corruption("4K@4", c);
  EXPECT_THROW(validate(backend, c, 2), UsageError);
}

TEST(Topo, TheCommandExitsOneOnACorruptedRound) {
  setenv(corrupt_variable, "64K@1", 1);
  std::ostringstream out, err;
  const int code = ferry_main({"run", "topo", "--backend", "emu", "--quick", "-q", "--devices", "0,1", "--topology",
                               "pair", "--transport", "p2p-ce", "--sizes", "4K,64K"},
                              out, err);
  unsetenv(corrupt_variable);
  EXPECT_EQ(code, 1) << err.str();
  EXPECT_NE(out.str().find("64 KiB: round 1 of 3 arrived wrong"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("topo: FAILED"), std::string::npos);
}

TEST(Topo, BadInputIsRefusedWithTheReason) {
  emu::EmuBackend backend;
  EXPECT_THROW(parse_topologies("pair,star"), UsageError);
  EXPECT_THROW(parse_topologies("ring,ring"), UsageError);
  EXPECT_THROW(parse_sizes("12QB", 1 << 20), UsageError);
  TopoConfig c = quick(backend, {0, 1});
  EXPECT_THROW(parse_corruption("4K@0", c), UsageError);
  c.transports = {Kind::host_staged};
  EXPECT_THROW(validate(backend, c, 2), UsageError);
  c = quick(backend, {0, 7});
  EXPECT_THROW(validate(backend, c, 2), UsageError);
  c = quick(backend, {0, 0});
  EXPECT_THROW(validate(backend, c, 2), UsageError);
  c = quick(backend, {0});
  EXPECT_THROW(validate(backend, c, 1), UsageError);  // nothing to measure between
  c = quick(backend, {0, 1});
  c.sizes = {1ull << 50};
  EXPECT_THROW(validate(backend, c, 2), UsageError);
}

// beff says the same, word for word but its name (beff_test.cpp).
TEST(Topo, TheCommandRefusesOneDeviceSayingHowToGetTwo) {
  std::ostringstream out, err;
  const int code = ferry_main({"run", "topo", "--backend", "emu", "--quick", "-q", "--devices", "0"}, out, err);
  EXPECT_EQ(code, 2) << err.str();
  EXPECT_NE(err.str().find("topo measures between devices: it needs 2 or more (--devices 0,1 on a machine with two "
                           "GPUs), or 2 or more MPI ranks (mpirun -np 2 ferry run topo); this run has 1"),
            std::string::npos)
      << err.str();
  EXPECT_EQ(out.str().find("PASSED"), std::string::npos) << out.str();
}

TEST(Topo, ARunInWhichEverythingWasSkippedSaysNothingWasMeasured) {
  emu::EmuBackend backend;
  TopoConfig config = quick(backend, {0, 1});
  config.topologies = {Topology::pair, Topology::ring, Topology::matrix};
  config.transports = {Kind::nccl};  // no NCCL library on the emulator
  try {
    run(backend, world(), backend.describe_machine(), config, {}, Progress("topo", false));
    FAIL() << "a run that measured nothing returned a result";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("topo: nothing was measured: every topology and transport asked for was skipped here ("),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("ring: "), std::string::npos) << "a ring of 2 is the pair: " << message;
    EXPECT_NE(message.find("nccl: "), std::string::npos) << message;
  }
}

TEST(Topo, TheCommandExitsTwoWhenEveryTransportWasSkipped) {
  std::ostringstream out, err;
  const int code = ferry_main({"run", "topo", "--backend", "emu", "--quick", "-q", "--devices", "0,1", "--topology",
                               "pair,matrix", "--transport", "nccl"},
                              out, err);
  EXPECT_EQ(code, 2) << out.str() << err.str();
  EXPECT_NE(err.str().find("topo: nothing was measured"), std::string::npos) << err.str();
  EXPECT_EQ(out.str().find("topo: PASSED"), std::string::npos) << out.str();
}

// What was skipped does not fail a run that measured something.
TEST(Topo, ATopologyMeasuredBesideSkippedOnesPasses) {
  emu::EmuBackend backend;
  TopoConfig config = quick(backend, {0, 1});
  config.topologies = {Topology::pair, Topology::host_staged};
  config.transports = {Kind::nccl};
  const WorkloadResult r = run(backend, world(), backend.describe_machine(), config, {}, Progress("topo", false));
  EXPECT_TRUE(r.passed());
  EXPECT_TRUE(skipped(r, "nccl: "));
  EXPECT_EQ(rows_of(r, "bandwidth", "host-staged").size(), config.sizes.size());
}

TEST(Topo, IrregularSizesAreOddAndRegularOnesPowersOfTwo) {
  for (std::uint64_t b : irregular_sizes()) EXPECT_EQ(b % 2, 1u) << b;
  const auto regular = regular_sizes();
  EXPECT_EQ(regular.front(), 1024u);
  EXPECT_EQ(regular.back(), 256ull << 20);
  EXPECT_EQ(regular.size(), 19u);
  EXPECT_EQ(parse_sizes("1000,3K", 1 << 20), (std::vector<std::uint64_t>{1000, 3072}));
}

// Two H200-like GPUs on 18 NVLink4 links each, through switches, and a third on PCIe only.
Machine machine_with_links() {
  Machine m;
  for (int d = 0; d < 3; ++d) {
    GpuFacts g;
    g.index = d;
    g.pcie = {.generation = 5, .width = 16, .max_generation = 5, .max_width = 16, .source = "nvml"};
    g.nvlinks = d < 2 ? 18 : 0;
    m.gpus.push_back(g);
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (a != b)
        m.peers.push_back({.from = a,
                           .to = b,
                           .direct_access = true,
                           .nvlinks = a < 2 && b < 2 ? 18 : 0,
                           .nvlink_version = a < 2 && b < 2 ? 4 : 0});
  return m;
}

TEST(TopoPeaks, DirectLinksAreTheirLanesTimesTheirRate) {
  const Machine m = machine_with_links();
  EXPECT_DOUBLE_EQ(model::peer_link(m, 0, 1).Bps, 18 * 25e9);
  EXPECT_EQ(model::peer_link(m, 0, 1).basis, "18 x NVLink4");
  // No NVLink: peer traffic over PCIe Gen5 x16.
  EXPECT_NEAR(model::peer_link(m, 0, 2).Bps, 63.0e9, 0.1e9);
  // A ring is as fast as its slowest hop.
  EXPECT_DOUBLE_EQ(direct_peak(m, Pattern::ring, {0, 1, 2}).Bps, model::peer_link(m, 0, 2).Bps);
  EXPECT_DOUBLE_EQ(direct_peak(m, Pattern::one_way, {0, 1}).Bps, 450e9);
}

TEST(TopoPeaks, FullyConnectedThroughASwitchSharesTheDevicesOwnLinks) {
  Machine m = machine_with_links();
  m.gpus.pop_back();
  m.peers.erase(std::remove_if(m.peers.begin(), m.peers.end(),
                               [](const PeerFacts& p) { return p.from == 2 || p.to == 2; }),
                m.peers.end());
  // Add a third switch GPU: each pair reports 18 links, but each GPU has only 18 in all.
  GpuFacts third = m.gpus.front();
  third.index = 2;
  m.gpus.push_back(third);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (a != b && (a == 2 || b == 2))
        m.peers.push_back({.from = a, .to = b, .direct_access = true, .nvlinks = 18, .nvlink_version = 4});
  const Peak fc = direct_peak(m, Pattern::fully_connected, {0, 1, 2});
  EXPECT_DOUBLE_EQ(fc.Bps, 18 * 25e9);
  EXPECT_NE(fc.basis.find("shared by 2 peers"), std::string::npos) << fc.basis;
}

TEST(TopoPeaks, TheHostPathIsItsThreeStepsInStoreAndForward) {
  const Machine m = machine_with_links();
  const double pcie = model::peer_link(m, 0, 2).Bps;
  const Peak staged = host_staged_peak(m, {0, 1}, 20e9, 16 << 20);
  EXPECT_NEAR(staged.Bps, 1 / (2 / pcie + 1 / 20e9), 1);
  EXPECT_NE(staged.basis.find("PCIe Gen5 x16 twice + host 20.0 GB/s at 16 MiB"), std::string::npos) << staged.basis;
  EXPECT_EQ(host_staged_peak(m, {0, 1}, 0, 16 << 20).Bps, 0);  // no P_host measured: no peak claimed
}

TEST(Topo, TheHostStepIsTimedPerSizeWithEveryMessageOfTheExchangeAndThePeakTakesTheFastest) {
  emu::EmuBackend backend;
  TopoConfig c = quick(backend, {0, 1, 2});
  c.topologies = {Topology::host_staged};
  c.sizes = {1000, 4ull << 20};
  const WorkloadResult r = run(backend, world(), machine_with_links(), c, {}, Progress("topo", false));
  ASSERT_TRUE(r.passed());
  // 1 MiB and 4 MiB (the ladder 1, 4, 16, 64 MiB as far as the largest size), 3 devices x 2 peers at once.
  const auto steps = rows_of(r, "host");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(text_of(*steps[0], "bytes"), std::to_string(1 << 20));
  EXPECT_EQ(text_of(*steps[1], "bytes"), std::to_string(4 << 20));
  for (const Row* step : steps) {
    EXPECT_EQ(step->check, Check::passed);
    EXPECT_EQ(text_of(*step, "how"), "memcpy between pinned buffers, 6 messages at once");
  }
  // The peak's P_host is the fastest step, named with its size.
  const Row* fastest = steps[0]->value() >= steps[1]->value() ? steps[0] : steps[1];
  const Row* peak = rows_of(r, "peak", "host-staged").front();
  ASSERT_TRUE(peak->model.has_value());
  EXPECT_NE(peak->model_basis.find(fmt::format("host {:.1f} GB/s at {}", fastest->value() / 1e9,
                                               format_bytes(std::stoull(text_of(*fastest, "bytes"))))),
            std::string::npos)
      << peak->model_basis;
}

TEST(TopoPeaks, LinksPeerCopiesStandBesideTheDirectPath) {
  const std::vector<model::PeerProfile> peers = {{.from = 0, .to = 1, .copy_Bps = 390e9, .bidirectional_Bps = 770e9}};
  EXPECT_DOUBLE_EQ(link_peak(peers, Pattern::one_way, {0, 1}).Bps, 390e9);
  EXPECT_DOUBLE_EQ(link_peak(peers, Pattern::ring, {0, 1}).Bps, 385e9);
  EXPECT_EQ(link_peak(peers, Pattern::one_way, {1, 2}).Bps, 0);
}

// The pair, both ways and one way, and the matrix on every NCCL variant: every round intact, each variant
// compared with the best of them.
TEST(Topo, EveryNcclVariantPassesThePairAndTheMatrixOnTwoGpus) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << cuda_unavailable_reason();
  auto backend = make_backend("cuda");
  if (backend->device_count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  TopoConfig config = quick(*backend, {0, 1});
  config.topologies = {Topology::pair, Topology::matrix};
  config.transports = {Kind::nccl, Kind::nccl_graph, Kind::nccl_graph_reg};
  const WorkloadResult r = run(*backend, world(), backend->describe_machine(), config, {}, Progress("topo", false));
  EXPECT_TRUE(r.passed());
  EXPECT_TRUE(r.skipped.empty()) << r.skipped.front();
  for (const Row* row : rows_of(r, "peak", "pair both")) EXPECT_NE(text_of(*row, "vs best NCCL"), "-");
  EXPECT_EQ(rows_of(r, "matrix-latency").size(), 6u);  // 2 directions x 3 variants
}

}  // namespace
}  // namespace ferry::topo
