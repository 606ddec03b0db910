#include "model/beff_model.hpp"

#include <gtest/gtest.h>

#include <string>
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
