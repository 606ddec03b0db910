// beff on the emulator: the definition's sizes, the messages checked on arrival, the
// transports that can run here passing, the others skipped with their reason.
#include "bench/beff/beff.hpp"

#include <gtest/gtest.h>

#include "bench/plan_texts.hpp"
#include "bench/row_params.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "backend/emu/emu_backend.hpp"
#include "backend/select.hpp"
#include "bench/link/link.hpp"
#include "bench/link/link_peer_flag.hpp"
#include "cli/cli.hpp"
#include "cli/run_ferry.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"
#include "model/beff_model.hpp"

namespace ferry::beff {
namespace {

using transport::Kind;

BeffConfig quick(const Backend& backend, std::vector<Kind> transports, std::vector<int> devices) {
  BeffConfig c = BeffConfig::defaults(backend.capabilities(), true);
  c.transports = std::move(transports);
  c.devices = std::move(devices);
  c.min_time_s = 1e-4;
  c.most_exchanges = 64;
  return c;
}

std::vector<const Row*> rows_of(const WorkloadResult& r, const std::string& section,
                                const std::string& transport = "") {
  std::vector<const Row*> rows;
  for (const Row& row : r.rows) {
    if (row.section != section) continue;
    const auto it =
        std::find_if(row.params.begin(), row.params.end(), [](const auto& p) { return p.first == "transport"; });
    if (!transport.empty() && std::get<std::string>(it->second) != transport) continue;
    rows.push_back(&row);
  }
  return rows;
}

bool any_note(const WorkloadResult& r, const std::string& part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

std::int64_t size_of(const Row& row) {
  for (const auto& [key, value] : row.params)
    if (key == "MSize bytes" || key == "bytes") return std::get<std::int64_t>(value);
  return -1;
}

TEST(Beff, MessageSizesAreTheTwentyOneOfTheDefinition) {
  const std::vector<std::uint64_t> sizes = definition_sizes();
  ASSERT_EQ(sizes.size(), 21u);
  EXPECT_EQ(sizes.front(), 1u);
  EXPECT_EQ(sizes[12], 4096u);
  EXPECT_EQ(sizes[13], 16384u);
  EXPECT_EQ(sizes.back(), 2u << 20);
  for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_EQ(sizes[i], sizes[i - 1] * (i == 13 ? 4 : 2));
}

TEST(Beff, MaxSizeExtendsTheTailByDoubling) {
  BeffConfig c;
  c.max_bytes = 256ull << 20;
  const std::vector<std::uint64_t> sizes = c.sizes();
  EXPECT_EQ(sizes.size(), 28u);
  EXPECT_EQ(sizes[21], 4u << 20);
  EXPECT_EQ(sizes.back(), 256u << 20);
}

TEST(Beff, BothPeerTransportsPassOnARingOfFourEmulatedDevices) {
  emu::EmuBackend backend;
  Progress progress("beff", false);
  progress.keep_steps();
  const BeffConfig config = quick(backend, {Kind::p2p_ce, Kind::p2p_sm}, {0, 1, 2, 3});
  const WorkloadResult r = run(backend, world(), config, {}, progress);
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(progress.steps_taken(), progress.steps_expected()) << "the terminal line's count must end at its total";
  EXPECT_EQ(progress.kept_steps(), texts(plan_run(config, 4))) << "--dry-run lists the steps the run takes";
  EXPECT_TRUE(r.skipped.empty());
  for (const std::string t : {"p2p-ce", "p2p-sm"}) {
    const auto ring = rows_of(r, "ring", t);
    ASSERT_EQ(ring.size(), 21u) << t;
    for (const Row* row : ring) {
      EXPECT_EQ(row->check, Check::passed) << t << " " << size_of(*row);
      EXPECT_EQ(row->headline, Headline::best);
      EXPECT_TRUE(row->model.has_value());
      EXPECT_GT(row->value(), 0);
    }
    EXPECT_EQ(rows_of(r, "exchange", t).size(), 21u * 4);
    ASSERT_EQ(rows_of(r, "beff", t).size(), 1u);
    const Row& beff = *rows_of(r, "beff", t).front();
    // b_eff is the mean of the ring's b(L) over the 21 sizes.
    double sum = 0;
    for (const Row* row : ring) sum += row->value();
    EXPECT_NEAR(beff.value(), sum / 21, 1e-9 * sum);
    EXPECT_EQ(rows_of(r, "latency", t).size(), 1u);
  }
}

TEST(Beff, BothSmProtocolsDeliverEverySize) {
  emu::EmuBackend backend;
  for (auto protocol : {transport::Options::SmProtocol::ll, transport::Options::SmProtocol::direct}) {
    BeffConfig c = quick(backend, {Kind::p2p_sm}, {0, 1});
    c.transport.sm_protocol = protocol;
    const WorkloadResult r = run(backend, world(), c, {}, Progress("beff", false));
    EXPECT_TRUE(r.passed());
    const auto ring = rows_of(r, "ring", "p2p-sm");
    ASSERT_EQ(ring.size(), 21u);
    const std::string want = protocol == transport::Options::SmProtocol::ll ? "LL" : "direct";
    for (const Row* row : ring) EXPECT_EQ(std::get<std::string>(row->params.at(1).second), want);
  }
}

TEST(Beff, ACorruptedByteFailsItsSizeAlone) {
  emu::EmuBackend backend;
  BeffConfig c = quick(backend, {Kind::p2p_ce}, {0, 1});
  c.corrupt_bytes = 4096;
  const WorkloadResult r = run(backend, world(), c, {}, Progress("beff", false));
  EXPECT_FALSE(r.passed());
  for (const Row* row : rows_of(r, "ring")) {
    EXPECT_EQ(row->check, size_of(*row) == 4096 ? Check::failed : Check::passed) << size_of(*row);
    if (size_of(*row) == 4096) EXPECT_NE(row->note.find("1 wrong"), std::string::npos) << row->note;
  }
  EXPECT_EQ(rows_of(r, "beff").front()->check, Check::failed);
}

// Every repetition's messages are checked, not the first's alone: a byte corrupted in a middle repetition or in
// the last fails its size as one in the first does.
TEST(Beff, ACorruptedByteInAMiddleOrTheLastRepetitionFailsItsSizeAlone) {
  emu::EmuBackend backend;
  for (const std::string hook : {"4K@2", "4K@3"}) {
    BeffConfig c = quick(backend, {Kind::p2p_ce}, {0, 1});
    c.repetitions = 3;
    parse_corruption(hook, c);
    const WorkloadResult r = run(backend, world(), c, {}, Progress("beff", false));
    EXPECT_FALSE(r.passed()) << hook;
    for (const Row* row : rows_of(r, "ring")) {
      EXPECT_EQ(row->check, size_of(*row) == 4096 ? Check::failed : Check::passed) << hook << " " << size_of(*row);
      if (size_of(*row) == 4096) EXPECT_NE(row->note.find("1 wrong"), std::string::npos) << hook << " " << row->note;
    }
    EXPECT_EQ(rows_of(r, "beff").front()->check, Check::failed) << hook;
  }
}

TEST(Beff, TheCorruptionHookNamesASizeAndARepetitionCountedFromOne) {
  BeffConfig c;
  parse_corruption("4K", c);
  EXPECT_EQ(c.corrupt_bytes, 4096u);
  EXPECT_EQ(c.corrupt_repetition, 0) << "without @, the first repetition, as before the hook took one";
  parse_corruption("64K@3", c);
  EXPECT_EQ(c.corrupt_bytes, 65536u);
  EXPECT_EQ(c.corrupt_repetition, 2);
  EXPECT_THROW(parse_corruption("4K@0", c), UsageError);
  EXPECT_THROW(parse_corruption("4K@x", c), UsageError);
  // A repetition the run does not have would corrupt nothing: refused, so a test of it cannot pass unseen.
  emu::EmuBackend backend;
  c = quick(backend, {Kind::p2p_ce}, {0, 1});
  c.repetitions = 3;
  parse_corruption("4K@3", c);
  EXPECT_NO_THROW(validate(backend, c, 2));
  parse_corruption("4K@4", c);
  EXPECT_THROW(validate(backend, c, 2), UsageError);
}

TEST(Beff, TheCommandExitsOneOnACorruptedLastRepetitionAndTwoOnOneItDoesNotHave) {
  const std::vector<std::string> args = {"run",        "beff", "--backend",   "emu",         "--quick",       "-q",
                                         "--devices",  "0,1",  "--transport", "host-staged", "--repetitions", "2",
                                         "--min-time", "100us"};
  setenv(corrupt_variable, "16K@2", 1);
  const Outcome last = ferry(args);
  setenv(corrupt_variable, "16K@3", 1);
  const Outcome past = ferry(args);
  unsetenv(corrupt_variable);
  EXPECT_EQ(last.code, 1) << last.out << last.err;
  EXPECT_NE(last.out.find("beff: FAILED"), std::string::npos) << last.out;
  EXPECT_EQ(past.code, 2) << past.out << past.err;
  EXPECT_NE(past.err.find("FERRY_FAULT_CORRUPT_MESSAGE: repetition 3 of a run of 2"), std::string::npos) << past.err;
}

TEST(Beff, WhatCannotRunHereIsSkippedWithTheReason) {
  emu::EmuBackend backend;
  const Progress progress("beff", false);
  const WorkloadResult r = run(backend, world(), quick(backend, transport::all_kinds(), {0, 1}), {}, progress);
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(progress.steps_taken(), progress.steps_expected()) << "a skipped transport takes no steps";
  auto skipped = [&](const std::string& what) {
    return std::any_of(r.skipped.begin(), r.skipped.end(),
                       [&](const std::string& s) { return s.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(skipped("nccl: "));
  EXPECT_TRUE(skipped("mpi-staged: ") && skipped("mpirun"));
  EXPECT_TRUE(skipped("mpi-cuda: "));
  // p2p-ce, p2p-sm and host-staged run in one process.
  EXPECT_EQ(rows_of(r, "beff").size(), 3u);
}

TEST(Beff, OneDeviceIsRefusedBeforeAnythingIsMeasured) {
  emu::EmuBackend backend;
  const Progress progress("beff", false);
  try {
    run(backend, world(), quick(backend, {Kind::p2p_ce, Kind::p2p_sm}, {2}), {}, progress);
    FAIL() << "a ring of one device ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("beff measures between devices"), std::string::npos) << e.what();
  }
  EXPECT_EQ(progress.steps_taken(), 0u);
}

// The command as a user on a machine with one GPU types it: no ring, so no table and no PASSED, but how to get two.
TEST(Beff, TheCommandRefusesOneDeviceSayingHowToGetTwo) {
  for (const bool dry_run : {false, true}) {
    std::vector<std::string> args = {"run", "beff", "--backend", "emu", "--quick", "-q", "--devices", "0"};
    if (dry_run) args.push_back("--dry-run");
    const Outcome o = ferry(args);
    EXPECT_EQ(o.code, 2) << o.out << o.err;
    EXPECT_NE(o.err.find("beff measures between devices: it needs 2 or more (--devices 0,1 on a machine with two "
                         "GPUs), or 2 or more MPI ranks (mpirun -np 2 ferry run beff); this run has 1"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(o.out.find("PASSED"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("skipped"), std::string::npos) << "refused before any transport was tried: " << o.out;
  }
}

TEST(Beff, ARunInWhichEveryTransportWasSkippedSaysNothingWasMeasured) {
  // nccl has no library on the emulator, and the MPI transports need mpirun: nothing of these can run here.
  const Outcome o =
      ferry({"run", "beff", "--backend", "emu", "--quick", "-q", "--devices", "0,1", "--transport", "nccl,mpi-staged"});
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("beff: nothing was measured: every transport asked for was skipped here (nccl: "),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("; mpi-staged: needs 2 or more MPI ranks"), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("PASSED"), std::string::npos) << o.out;
}

TEST(Beff, P2pCeIsModelledFromLinksPeerFigures) {
  emu::EmuBackend backend;
  // 8 B one way in 5 us; 2 MiB both ways at once in 15 us: t_lat = 5 us (less 8 B's share), B = 2 MiB / 10 us.
  // The slower direction of the hop sets the terms: the way back's 3 us for 8 B does not.
  model::PeerProfile there{.from = 0, .to = 1, .direct_access = true, .copy_Bps = 20e9, .latency_s = 8e-6};
  there.copy_times = {{8, 5e-6}, {2 << 20, 9e-6}};
  there.both_ways = {{2 << 20, 15e-6}, {4 << 20, 25e-6}};
  model::PeerProfile back = there;
  back.from = 1, back.to = 0;
  back.copy_times = {{8, 3e-6}};
  back.both_ways = {{2 << 20, 13e-6}};
  BeffConfig c = quick(backend, {Kind::p2p_ce}, {0, 1});
  c.profile_origin = "given";
  const WorkloadResult r = run(backend, world(), c, {there, back}, Progress("beff", false));
  const Row& first = *rows_of(r, "ring").front();
  EXPECT_EQ(first.model_basis.rfind("link", 0), 0u) << first.model_basis;
  const Row& terms = *rows_of(r, "model").front();
  const double bandwidth = (2 << 20) - 8.0;
  EXPECT_NEAR(terms.value(), 5e-6 - 8 * 10e-6 / bandwidth, 1e-12);
  EXPECT_NEAR(std::get<double>(terms.params.at(2).second), bandwidth / 10e-6 / 1e9, 1e-9);
}

// Link's figures for the hop 0 <-> 1, the way there slower in both: a flag one
// way in 1 us, SM stores both ways at 40 GB/s (20 each way); the way back 0.5 us and 60 GB/s.
std::vector<model::PeerProfile> peer_store_figures() {
  model::PeerProfile there{.from = 0, .to = 1, .direct_access = true, .copy_Bps = 20e9, .latency_s = 8e-6};
  there.sm_push_Bps = 40e9;
  there.flag_one_way_s = 1e-6;
  model::PeerProfile back = there;
  back.from = 1, back.to = 0;
  back.sm_push_Bps = 60e9;
  back.flag_one_way_s = 0.5e-6;
  return {there, back};
}

TEST(Beff, P2pSmIsModelledFromLinksPeerFlagAndSmStores) {
  emu::EmuBackend backend;
  BeffConfig c = quick(backend, {Kind::p2p_sm}, {0, 1});
  c.profile_origin = "given";
  const WorkloadResult r = run(backend, world(), c, peer_store_figures(), Progress("beff", false));
  EXPECT_TRUE(r.passed());
  // LL: the flag one way, and half the stores' 20 GB/s each way (its lines carry 8 data bytes in 16).
  // direct: the flag one way and a round trip for the release, and the stores' rate each way.
  const auto terms = rows_of(r, "model", "p2p-sm");
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_NEAR(terms[0]->value(), 1e-6, 1e-15);
  EXPECT_NEAR(std::get<double>(terms[0]->params.at(2).second), 10.0, 1e-9);
  EXPECT_NEAR(terms[1]->value(), 3e-6, 1e-15);
  EXPECT_NEAR(std::get<double>(terms[1]->params.at(2).second), 20.0, 1e-9);
  EXPECT_EQ(text_of(*terms[0], "basis").rfind("LL: link (given)", 0), 0u) << text_of(*terms[0], "basis");
  EXPECT_EQ(text_of(*terms[1], "basis").rfind("direct: link (given)", 0), 0u) << text_of(*terms[1], "basis");
  // The fitted terms stand beside them, in their own section.
  const auto fitted = rows_of(r, "model_fitted", "p2p-sm");
  ASSERT_EQ(fitted.size(), 2u);
  for (const Row* row : fitted) EXPECT_NE(text_of(*row, "basis").find("fitted to this run's"), std::string::npos);
  // Every ring row: the model from link, and its residual beside the fitted model's.
  for (const Row* row : rows_of(r, "ring", "p2p-sm")) {
    const bool ll = text_of(*row, "protocol") == "LL";
    const model::LinkTerms expected = ll ? model::LinkTerms{1e-6, 10e9} : model::LinkTerms{3e-6, 20e9};
    EXPECT_NEAR(*row->model, 2 * expected.rate_Bps(static_cast<double>(size_of(*row))), 1e-9 * *row->model);
    EXPECT_EQ(row->model_basis.rfind(ll ? "LL: link" : "direct: link", 0), 0u) << row->model_basis;
    EXPECT_EQ(text_of(*row, "residual (link)").back(), '%');
    EXPECT_EQ(text_of(*row, "residual (fitted)").back(), '%');
  }
  const Row& latency = *rows_of(r, "latency", "p2p-sm").front();
  EXPECT_NEAR(*latency.model, 1e-6 + 8 / 10e9, 1e-15);
  EXPECT_FALSE(any_note(r, "no model from link"));
}

TEST(Beff, AResultsFileGivesTheModelBeffOneModelPerTransportTheOneFromLink) {
  emu::EmuBackend backend;
  BeffConfig c = quick(backend, {Kind::p2p_sm}, {0, 1});
  Results results;
  results.workloads.push_back(run(backend, world(), c, peer_store_figures(), Progress("beff", false)));
  const model::TransportTerms terms = model::transport_terms_from_json(results_to_json(results), "r.json");
  ASSERT_EQ(terms.transports.size(), 1u);
  const model::TransportModel& sm = terms.transports.front();
  ASSERT_EQ(sm.segments.size(), 2u) << "the fitted terms beside it are not read as more segments";
  EXPECT_NEAR(sm.segments[0].terms.latency_s, 1e-6, 1e-12);
  EXPECT_NEAR(sm.segments[1].terms.bandwidth_Bps, 20e9, 1);
}

TEST(Beff, WithoutLinksPeerFlagP2pSmIsFittedAloneAndSaysSo) {
  emu::EmuBackend backend;
  std::vector<model::PeerProfile> before_the_flag = peer_store_figures();
  for (model::PeerProfile& p : before_the_flag) p.flag_one_way_s = 0;  // a profile written before link measured it
  BeffConfig c = quick(backend, {Kind::p2p_sm}, {0, 1});
  c.profile_origin = "from the profile old.json";
  for (const auto& peers : {std::vector<model::PeerProfile>{}, before_the_flag}) {
    const WorkloadResult r = run(backend, world(), c, peers, Progress("beff", false));
    EXPECT_TRUE(r.passed());
    EXPECT_TRUE(any_note(r, "p2p-sm: no model from link")) << (r.notes.empty() ? "" : r.notes.front());
    EXPECT_TRUE(
        any_note(r, peers.empty() ? "link measured no peers" : "(from the profile old.json) lack the peer flag"));
    EXPECT_TRUE(rows_of(r, "model_fitted").empty());
    for (const Row* row : rows_of(r, "model", "p2p-sm"))
      EXPECT_NE(text_of(*row, "basis").find("fitted to this run's"), std::string::npos) << text_of(*row, "basis");
    for (const Row* row : rows_of(r, "ring", "p2p-sm")) {
      EXPECT_NE(row->model_basis.find("fitted to this run's"), std::string::npos) << row->model_basis;
      EXPECT_EQ(text_of(*row, "residual (link)"), "-");
      EXPECT_EQ(text_of(*row, "residual (fitted)").back(), '%');
    }
    EXPECT_FALSE(rows_of(r, "latency", "p2p-sm").front()->model.has_value());
  }
}

TEST(Beff, LinksPeerFlagPassesOnTwoEmulatedDevicesAndFillsTheProfile) {
  emu::EmuBackend backend;
  const link::LinkOutcome out =
      link::run(backend, backend.describe_machine(), link::LinkConfig::for_peers(backend.capabilities(), {0, 1}),
                Progress("link", false));
  const auto flags = rows_of(out.result, "peer_flag");
  ASSERT_EQ(flags.size(), 1u) << "one row per pair of devices";
  EXPECT_EQ(flags.front()->check, Check::passed);
  EXPECT_GT(flags.front()->value(), 0);
  ASSERT_EQ(out.profile.peers.size(), 2u);
  for (const model::PeerProfile& p : out.profile.peers) EXPECT_EQ(p.flag_one_way_s, flags.front()->stats().median);
  const model::MachineProfile again = model::profile_from_json(model::profile_to_json(out.profile), "p.json");
  EXPECT_EQ(again.peers.front().flag_one_way_s, out.profile.peers.front().flag_one_way_s);

  // beff with those figures: p2p-sm's ring rows carry both residuals; a transport link gives no model for is fitted, and says so.
  BeffConfig c = quick(backend, {Kind::p2p_sm, Kind::host_staged}, {0, 1});
  c.profile_origin = "measured in this run";
  const WorkloadResult r = run(backend, world(), c, out.profile.peers, Progress("beff", false));
  EXPECT_TRUE(r.passed());
  for (const Row* row : rows_of(r, "ring", "p2p-sm")) {
    EXPECT_NE(row->model_basis.find("link (measured in this run)"), std::string::npos) << row->model_basis;
    EXPECT_EQ(text_of(*row, "residual (link)").back(), '%');
    EXPECT_EQ(text_of(*row, "residual (fitted)").back(), '%');
  }
  for (const Row* row : rows_of(r, "ring", "host-staged")) {
    EXPECT_NE(row->model_basis.find("fitted to this run's"), std::string::npos) << row->model_basis;
    EXPECT_EQ(text_of(*row, "residual (link)"), "-");
  }
  const Row& beff = *rows_of(r, "beff", "p2p-sm").front();
  EXPECT_EQ(text_of(beff, "residual (link)").back(), '%');
  EXPECT_EQ(text_of(beff, "residual (fitted)").back(), '%');
}

TEST(Beff, TheCommandRunsLinkBeforeP2pSmAloneForItsModel) {
  const std::string path = (std::filesystem::temp_directory_path() / "ferry-beff-p2p-sm.json").string();
  std::ostringstream out, err;
  const int code = ferry_main({"run", "beff", "--backend", "emu", "--quick", "--quiet", "--devices", "0,1",
                               "--transport", "p2p-sm", "--min-time", "100us", "--repetitions", "1", "--json", path},
                              out, err);
  ASSERT_EQ(code, 0) << err.str();
  const auto doc = nlohmann::json::parse(read_file(path));
  std::filesystem::remove(path);
  ASSERT_EQ(doc["workloads"].size(), 2u);
  ASSERT_EQ(doc["workloads"][0]["name"], "link");
  int flags = 0;
  for (const auto& row : doc["workloads"][0]["rows"]) flags += row["section"] == "peer_flag";
  EXPECT_EQ(flags, 1);
  for (const auto& row : doc["workloads"][1]["rows"]) {
    if (row["section"] != "ring") continue;
    EXPECT_EQ(row["params"]["residual (link)"].get<std::string>().back(), '%');
    EXPECT_EQ(row["params"]["residual (fitted)"].get<std::string>().back(), '%');
  }
}

TEST(Beff, APeerFlagAnswerWithoutItsRoundTripsTagIsCounted) {
  const std::uint64_t answered[] = {7, 8, 9, 10};
  EXPECT_EQ(link::wrong_peer_flag_answers(answered, 4, 7), 0u);
  const std::uint64_t one_stale[] = {7, 8, 8, 10};
  EXPECT_EQ(link::wrong_peer_flag_answers(one_stale, 4, 7), 1u);
  EXPECT_EQ(link::wrong_peer_flag_answers(answered, 4, 6), 4u) << "answers from another sample's tags";
}

TEST(Beff, ValidateRefusesWhatCannotRun) {
  emu::EmuBackend backend;
  BeffConfig c = quick(backend, {Kind::p2p_ce}, {0, 1});
  EXPECT_NO_THROW(validate(backend, c, 2));
  EXPECT_THROW(validate(backend, c, 1), UsageError) << "one participant: nothing to measure between";
  c.max_bytes = 1 << 20;
  EXPECT_THROW(validate(backend, c, 2), UsageError);
  c = quick(backend, {Kind::p2p_ce}, {0, 0});
  EXPECT_THROW(validate(backend, c, 2), UsageError);
  c = quick(backend, {Kind::p2p_ce}, {0, 9});
  EXPECT_THROW(validate(backend, c, 2), UsageError);
  c = quick(backend, {}, {0, 1});
  EXPECT_THROW(validate(backend, c, 2), UsageError);
}

TEST(Beff, ThePeerTransportsAndNcclPassOnTwoGpus) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << cuda_unavailable_reason();
  auto backend = make_backend("cuda");
  if (backend->device_count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  BeffConfig c = quick(*backend, {Kind::p2p_ce, Kind::p2p_sm, Kind::nccl}, {0, 1});
  c.transport.timeout_s = 10;
  const WorkloadResult r = run(*backend, world(), c, {}, Progress("beff", false));
  EXPECT_TRUE(r.passed());
  for (const std::string t : {"p2p-ce", "p2p-sm"}) EXPECT_EQ(rows_of(r, "ring", t).size(), 21u) << t;
  for (const std::string& s : r.skipped) EXPECT_EQ(s.find("p2p"), std::string::npos) << s;
}

// Every way ferry runs NCCL moves the ring intact, each named in its protocol, and one is the best the others
// are compared with; a corrupted byte fails each of them, registered NCCL memory included.
TEST(Beff, EveryNcclVariantPassesOnTwoGpusAndACorruptedByteFailsEach) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << cuda_unavailable_reason();
  auto backend = make_backend("cuda");
  if (backend->device_count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  const std::vector<Kind> variants = {Kind::nccl, Kind::nccl_graph, Kind::nccl_graph_reg};
  BeffConfig c = quick(*backend, variants, {0, 1});
  c.transport.timeout_s = 10;
  const WorkloadResult r = run(*backend, world(), c, {}, Progress("beff", false));
  EXPECT_TRUE(r.passed());
  EXPECT_TRUE(r.skipped.empty()) << r.skipped.front();
  for (Kind k : variants) {
    const auto ring = rows_of(r, "ring", std::string(to_string(k)));
    ASSERT_EQ(ring.size(), 21u) << to_string(k);
    EXPECT_NE(std::get<std::string>(ring.front()->params.at(1).second).find("ncclSend/Recv"), std::string::npos);
  }
  EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(),
                          [](const std::string& n) { return n.starts_with("best NCCL variant: nccl"); }));
  for (Kind k : variants) {
    BeffConfig corrupt = quick(*backend, {k}, {0, 1});
    corrupt.corrupt_bytes = 4096;
    const WorkloadResult failed = run(*backend, world(), corrupt, {}, Progress("beff", false));
    EXPECT_FALSE(failed.passed()) << to_string(k);
    EXPECT_EQ(rows_of(failed, "beff").front()->check, Check::failed) << to_string(k);
  }
}

}  // namespace
}  // namespace ferry::beff
