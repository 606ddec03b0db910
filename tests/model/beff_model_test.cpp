#include "model/beff_model.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "model/profile.hpp"

namespace ferry::model {
namespace {

TEST(BeffModel, BandwidthApproachesBAndSmallMessagesPayTheLatency) {
  const LinkTerms t{2e-6, 400e9};
  EXPECT_NEAR(t.rate_Bps(8), 8 / 2e-6, 1e3);
  EXPECT_NEAR(t.rate_Bps(1e9), 400e9, 1e9);
  EXPECT_DOUBLE_EQ(t.balance_bytes(), 800e3);
}

// Within a part in 10^12: rounding, far below a term scaled by 1.1 or dropped.
void expect_beff_figure(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-12 * std::abs(expected)) << "expected " << expected;
}

TEST(BeffModel, AnExchangeIsItsLatencyPlusItsBytesOverTheBandwidth) {
  // 10 kB at 5 GB/s is 2 us, after 3 us of latency: 5 us, 2 GB/s. The terms differ, so neither can
  // change unseen; below 15 kB the latency is the larger.
  const LinkTerms t{3e-6, 5e9};
  expect_beff_figure(t.exchange_seconds(10e3), 5e-6);
  expect_beff_figure(t.rate_Bps(10e3), 2e9);
  expect_beff_figure(t.balance_bytes(), 15e3);
}

TEST(BeffModel, TheFitsBandwidthIsTheSlopeBetweenTheSizesAndItsLatencyWhatTheSmallerLeaves) {
  // 1 MB more in 10 us more: 100 GB/s; 1000 B of the smaller size's 3 us are then 10 ns of it.
  const LinkTerms fit = fit_two_sizes(1000, 3e-6, 1001000, 13e-6);
  expect_beff_figure(fit.bandwidth_Bps, (1001000 - 1000) / (13e-6 - 3e-6));
  expect_beff_figure(fit.latency_s, 3e-6 - 1000 / fit.bandwidth_Bps);
  const LinkTerms no_room = fit_two_sizes(1000, 1e-6, 2000, 3e-6);
  expect_beff_figure(no_room.bandwidth_Bps, 1000 / 2e-6);
  EXPECT_EQ(no_room.latency_s, 0) << "1000 B at 500 MB/s take 2 us, more than the 1 us measured: no latency";
  const LinkTerms noisy = fit_two_sizes(1000, 5e-6, 2000000, 4e-6);
  EXPECT_EQ(noisy.latency_s, 5e-6) << "the larger was no slower: the smaller's time is the latency";
  expect_beff_figure(noisy.bandwidth_Bps, 2000000 / 4e-6);
}

TEST(BeffModel, P2pCeTermsAreFittedThroughTheSmallestOneWayCopyAndTheSmallestPairBothWays) {
  PeerProfile peer{.from = 0, .to = 1};
  peer.copy_times = {{8, 4e-6}, {2 << 20, 30e-6}};
  peer.both_ways = {{1000008, 14e-6}, {4000008, 50e-6}};
  const std::optional<LinkTerms> terms = copy_engine_terms(peer);
  ASSERT_TRUE(terms.has_value());
  const double bandwidth = (1000008 - 8) / (14e-6 - 4e-6);  // 100 GB/s
  expect_beff_figure(terms->bandwidth_Bps, bandwidth);
  expect_beff_figure(terms->latency_s, 4e-6 - 8 / bandwidth);
  peer.both_ways.clear();
  EXPECT_FALSE(copy_engine_terms(peer).has_value()) << "a profile without copies both ways";
}

// LL up to 1 KiB (1 us, 2 GB/s), direct above (3 us, 8 GB/s).
TransportModel two_protocols() { return {"p2p-sm", {{1024, {1e-6, 2e9}, "LL"}, {~0ull, {3e-6, 8e9}, "direct"}}}; }

TEST(BeffModel, BeffIsTheMeanOfEachSizesRateUnderItsOwnProtocolsTerms) {
  const double ll = 1000 / (1e-6 + 1000 / 2e9), direct_small = 4000 / (3e-6 + 4000 / 8e9),
               direct_large = 8e6 / (3e-6 + 8e6 / 8e9);
  expect_beff_figure(model_beff_Bps(two_protocols(), {1000, 4000, 8000000}), (ll + direct_small + direct_large) / 3);
}

TEST(BeffModel, ARingAcrossNodesTakesTheSlowerLatencyAndTheLowerBandwidthOfEachProtocolAndTheNetwork) {
  const LinkTerms network{2e-6, 5e9};
  const std::vector<std::uint64_t> sizes = {1000, 4000, 8000000};
  const RingPrediction across = predict_ring(two_protocols(), 16, 4, network, true, sizes);
  // LL: the network's 2 us with LL's own 2 GB/s; direct: its own 3 us with the network's 5 GB/s.
  const double ll = 1000 / (2e-6 + 1000 / 2e9), direct_small = 4000 / (3e-6 + 4000 / 5e9),
               direct_large = 8e6 / (3e-6 + 8e6 / 5e9);
  expect_beff_figure(across.beff_per_device_Bps, (ll + direct_small + direct_large) / 3);
  expect_beff_figure(across.beff_ring_Bps, 16 * (ll + direct_small + direct_large) / 3);
  EXPECT_EQ(across.pace.latency_s, 3e-6);
  EXPECT_EQ(across.pace.bandwidth_Bps, 5e9);
  // Only 8 MB is past its balance size (direct: 3 us x 5 GB/s = 15 kB; LL: 4 kB, past 1000 B).
  expect_beff_figure(across.bandwidth_share, direct_large / (ll + direct_small + direct_large));

  const RingPrediction inside = predict_ring(two_protocols(), 4, 4, network, true, sizes);
  EXPECT_FALSE(inside.spans_nodes);
  expect_beff_figure(inside.beff_per_device_Bps, model_beff_Bps(two_protocols(), sizes));
}

TEST(BeffModel, TheFitPassesThroughItsTwoSizes) {
  const LinkTerms truth{1.5e-6, 300e9};
  const LinkTerms fit = fit_two_sizes(8, truth.exchange_seconds(8), 2 << 20, truth.exchange_seconds(2 << 20));
  EXPECT_NEAR(fit.latency_s, truth.latency_s, 1e-12);
  EXPECT_NEAR(fit.bandwidth_Bps, truth.bandwidth_Bps, 1);
}

TEST(BeffModel, ATransportThatChangesProtocolGetsTermsPerProtocol) {
  const LinkTerms ll{1e-6, 100e9}, direct{3e-6, 400e9};
  std::vector<MeasuredSize> measured;
  for (std::uint64_t bytes : {1ull, 8ull, 1024ull, 65536ull})
    measured.push_back({bytes, ll.exchange_seconds(static_cast<double>(bytes)), "LL"});
  for (std::uint64_t bytes : {131072ull, 1048576ull, 2097152ull})
    measured.push_back({bytes, direct.exchange_seconds(static_cast<double>(bytes)), "direct"});
  const TransportModel m = fit_transport("p2p-sm", measured, 8);
  ASSERT_EQ(m.segments.size(), 2u);
  EXPECT_EQ(m.segments[0].up_to_bytes, 65536u);
  EXPECT_NEAR(m.segments[0].terms.latency_s, 1e-6, 1e-12);
  EXPECT_NEAR(m.segments[1].terms.bandwidth_Bps, 400e9, 1);
  for (const MeasuredSize& s : measured)
    EXPECT_NEAR(m.rate_Bps(s.bytes), static_cast<double>(s.bytes) / s.exchange_s,
                1e-6 * static_cast<double>(s.bytes) / s.exchange_s);
}

TEST(BeffModel, BeffIsTheMeanOverSizes) {
  const TransportModel m{"x", {{~0ull, {0, 10e9}, ""}}};
  EXPECT_DOUBLE_EQ(model_beff_Bps(m, {1, 2, 3}), 10e9);
}

TEST(BeffModel, ARingAcrossNodesMovesAtTheNetworksPace) {
  const TransportModel nvlink{"nccl", {{~0ull, {5e-6, 350e9}, ""}}};
  const LinkTerms network{3e-6, 50e9};
  const std::vector<std::uint64_t> sizes = {8, 4096, 1 << 20, 2 << 20};
  const RingPrediction inside = predict_ring(nvlink, 8, 8, network, true, sizes);
  const RingPrediction across = predict_ring(nvlink, 64, 8, network, true, sizes);
  EXPECT_FALSE(inside.spans_nodes);
  EXPECT_TRUE(across.spans_nodes);
  EXPECT_LT(across.beff_per_device_Bps, inside.beff_per_device_Bps);
  EXPECT_DOUBLE_EQ(across.pace.bandwidth_Bps, 50e9);
  EXPECT_DOUBLE_EQ(across.pace.latency_s, 5e-6);  // the slower of the two latencies
  EXPECT_DOUBLE_EQ(across.beff_ring_Bps, 64 * across.beff_per_device_Bps);
}

TEST(BeffModel, AFileThatIsNeitherResultsNorAProfileIsOneClearError) {
  // 1e999 is past a double's range (nlohmann's out_of_range, found by fuzzing); a schema may not be a string.
  for (const char* bad : {"not json", "[1e999]", "{}", R"({"schema": 5})", R"({"schema": "ferry.results/1"})"}) {
    try {
      transport_terms_from_json(bad, "t.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'t.json'"), std::string::npos) << e.what();
    }
  }
}

TEST(BeffModel, AResultsFileWhoseCountsAreNotWholeNumbersIsRefusedWithTheFieldNamed) {
  // nlohmann converts a float or a number out of range to an integer with undefined behaviour.
  const std::string row = R"({"section": "model", "value": 2.0, "params": {"transport": "nccl", "B GB/s": 100, )";
  const std::string tail = R"(}]}]})";
  const std::string head = R"({"schema": "ferry.results/1", "workloads": [{"name": "beff", )";
  const std::string good =
      head + R"("config": {"participants": 2}, "rows": [)" + row + R"("up to bytes": 4096})" + tail;
  EXPECT_EQ(transport_terms_from_json(good, "t.json").devices, 2);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {head + R"("config": {"participants": 2.5}, "rows": [)" + row + R"("up to bytes": 4096})" + tail, "participants"},
      {head + R"("config": {"participants": 1e30}, "rows": [)" + row + R"("up to bytes": 4096})" + tail,
       "participants"},
      {head + R"("config": {"participants": 2}, "rows": [)" + row + R"("up to bytes": -1})" + tail, "up to bytes"},
      {head + R"("config": {"participants": 2}, "rows": [)" + row + R"("up to bytes": 1e300})" + tail, "up to bytes"}};
  for (const auto& [text, field] : bad) {
    try {
      transport_terms_from_json(text, "t.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'t.json'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
}

// t_lat may be 0 (the fit's floor when the smaller size leaves no time over the bandwidth's share); B is a rate.
TEST(BeffModel, AModelRowWithANegativeLatencyOrARateNotAboveZeroIsRefusedNamingTheFileAndTheRow) {
  const auto file = [](const std::string& latency_us, const std::string& GBps) {
    return R"({"schema": "ferry.results/1", "workloads": [{"name": "beff", "config": {"participants": 2}, "rows": [)"
           R"({"section": "model", "value": )" +
           latency_us + R"(, "params": {"transport": "nccl", "B GB/s": )" + GBps + R"(, "up to bytes": 4096}}]}]})";
  };
  EXPECT_EQ(transport_terms_from_json(file("0", "100"), "t.json").transports.at(0).segments.at(0).terms.latency_s, 0);
  for (const auto& [latency_us, GBps, field] :
       {std::tuple{"-2.0", "100", "\"value\" is -2"}, std::tuple{"2.0", "0", "\"B GB/s\" is 0"},
        std::tuple{"2.0", "-100", "\"B GB/s\" is -100"}}) {
    try {
      transport_terms_from_json(file(latency_us, GBps), "t.json");
      ADD_FAILURE() << "accepted t_lat " << latency_us << " us, B " << GBps << " GB/s";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("'t.json'"), std::string::npos) << message;
      EXPECT_NE(message.find("beff model (transport=nccl, up to bytes=4 KiB)"), std::string::npos) << message;
      EXPECT_NE(message.find(field), std::string::npos) << message;
    }
  }
  for (const char* value : {"NaN", "1e999"}) {
    try {
      transport_terms_from_json(file(value, "100"), "t.json");
      ADD_FAILURE() << "accepted " << value;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'t.json' is not JSON"), std::string::npos) << e.what();
    }
  }
}

TEST(BeffModel, AResultsFileSaysWhichOfItsRowsFailedTheirCheck) {
  // Every workload's rows count: a beff file's link rows are p2p-ce's terms.
  const std::string terms = R"({"section": "model", "value": 2.0, "check": "n/a", "params": {"transport": "nccl",
                                "B GB/s": 100, "up to bytes": 4096}})";
  const std::string ring = R"({"section": "ring", "value": 1.0, "check": "FAILED", "params": {"transport": "nccl",
                               "protocol": "nccl", "MSize bytes": 4096, "looplength": 9}})";
  const std::string copy = R"({"section": "bandwidth", "value": 1.0, "check": "FAILED", "params": {"device": 0,
                               "direction": "h2d"}})";
  const auto file = [&](const std::string& verification, const std::string& link_rows, const std::string& beff_rows) {
    return R"({"schema": "ferry.results/1", "verification": ")" + verification + R"(", "workloads": [)" +
           R"({"name": "link", "rows": [)" + link_rows + R"(]}, {"name": "beff", "config": {"participants": 2}, )" +
           R"("rows": [)" + beff_rows + "]}]}";
  };
  const TransportTerms clean = transport_terms_from_json(file("PASSED", "", terms), "t.json");
  EXPECT_TRUE(clean.input_passed());

  const TransportTerms failed = transport_terms_from_json(file("FAILED", copy, terms + "," + ring), "t.json");
  EXPECT_FALSE(failed.input_passed());
  EXPECT_TRUE(failed.run_failed);
  EXPECT_EQ(failed.failed_rows, (std::vector<std::string>{"link bandwidth (device=0, direction=h2d)",
                                                          "beff ring (transport=nccl, MSize bytes=4 KiB)"}));
  ASSERT_EQ(failed.transports.size(), 1u);  // the terms are still read, for --allow-failed

  const TransportTerms edited = transport_terms_from_json(file("FAILED", "", terms), "t.json");
  EXPECT_TRUE(edited.failed_rows.empty());
  EXPECT_FALSE(edited.input_passed());
}

TEST(BeffModel, TheLayoutOfTheMeasuredRingComesFromItsExchangeRowsRanks) {
  const auto file = [](const std::string& exchange_rows) {
    const std::string terms = R"({"section": "model", "value": 2.0, "check": "n/a", "params": {"transport": "nccl",
                                  "B GB/s": 100, "up to bytes": 4096}})";
    return R"({"schema": "ferry.results/1", "verification": "PASSED", "workloads": [{"name": "beff", )"
           R"("config": {"participants": 2}, "rows": [)" +
           terms + (exchange_rows.empty() ? "" : ",") + exchange_rows + "]}]}";
  };
  const auto exchange = [](int rank) {
    return fmt::format(R"({{"section": "exchange", "value": 1.0, "params": {{"transport": "nccl", "participant": {0},
                           "rank": {0}, "bytes": 8}}}})",
                       rank);
  };
  EXPECT_EQ(transport_terms_from_json(file(exchange(0) + "," + exchange(0)), "t.json").layout, Layout::one_process);
  EXPECT_EQ(transport_terms_from_json(file(exchange(0) + "," + exchange(1)), "t.json").layout, Layout::rank_per_device);
  EXPECT_EQ(transport_terms_from_json(file(""), "t.json").layout, Layout::unknown);
}

TEST(BeffModel, P2pSmTermsComeFromLinksPeerFlagAndSmStoresPerProtocol) {
  PeerProfile peer{.from = 0, .to = 1};
  peer.flag_one_way_s = 0.6e-6;
  peer.sm_push_Bps = 714e9;  // both devices' bytes: 357 GB/s each way
  // LL: its lines are their own flags, one way; 8 data bytes in every 16 stored.
  const std::optional<LinkTerms> ll = peer_store_terms(peer, "LL");
  ASSERT_TRUE(ll.has_value());
  EXPECT_DOUBLE_EQ(ll->latency_s, 0.6e-6);
  EXPECT_DOUBLE_EQ(ll->bandwidth_Bps, 178.5e9);
  // direct: the release's round trip after the stores, then the flag one way; data alone.
  const std::optional<LinkTerms> direct = peer_store_terms(peer, "direct");
  ASSERT_TRUE(direct.has_value());
  EXPECT_DOUBLE_EQ(direct->latency_s, 1.8e-6);
  EXPECT_DOUBLE_EQ(direct->bandwidth_Bps, 357e9);
  EXPECT_FALSE(peer_store_terms(peer, "copy engine").has_value());
  PeerProfile before_the_flag = peer;
  before_the_flag.flag_one_way_s = 0;
  EXPECT_FALSE(peer_store_terms(before_the_flag, "LL").has_value());
  PeerProfile no_stores = peer;
  no_stores.sm_push_Bps = 0;
  EXPECT_FALSE(peer_store_terms(no_stores, "direct").has_value());
}

TEST(BeffModel, TheSlowestHopSetsBothTermsAndAHopWithoutFiguresGivesNone) {
  PeerProfile there{.from = 0, .to = 1}, back{.from = 1, .to = 0};
  there.flag_one_way_s = 1e-6, there.sm_push_Bps = 80e9;
  back.flag_one_way_s = 2e-6, back.sm_push_Bps = 100e9;
  const auto ll = [](const PeerProfile& p) { return peer_store_terms(p, "LL"); };
  const std::optional<LinkTerms> slowest = slowest_hop({there, back}, {{0, 1}, {1, 0}}, ll);
  ASSERT_TRUE(slowest.has_value());
  EXPECT_DOUBLE_EQ(slowest->latency_s, 2e-6);          // the way back's flag
  EXPECT_DOUBLE_EQ(slowest->bandwidth_Bps, 80e9 / 4);  // the way there's stores
  EXPECT_FALSE(slowest_hop({there, back}, {{0, 1}, {1, 2}}, ll).has_value()) << "no figures for 1 -> 2";
}

TEST(BeffModel, AProfileKeepsThePeerFlagAndOneWrittenBeforeItReadsAsNotMeasured) {
  MachineProfile profile;
  profile.backend = "emu";
  PeerProfile peer{.from = 0, .to = 1, .direct_access = true, .copy_Bps = 1e9, .latency_s = 1e-5};
  peer.flag_one_way_s = 7.5e-7;
  profile.peers.push_back(peer);
  const std::string text = profile_to_json(profile);
  EXPECT_DOUBLE_EQ(profile_from_json(text, "p.json").peers.front().flag_one_way_s, 7.5e-7);
  std::string older = text;
  const std::size_t at = older.find("\"flag_one_way_s\"");
  ASSERT_NE(at, std::string::npos);
  older.replace(at, std::string("\"flag_one_way_s\"").size(), "\"unknown_field\"");
  EXPECT_EQ(profile_from_json(older, "old.json").peers.front().flag_one_way_s, 0);
}

}  // namespace
}  // namespace ferry::model
