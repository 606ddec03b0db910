#include "model/beff_model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

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
    EXPECT_NEAR(m.rate_Bps(s.bytes), static_cast<double>(s.bytes) / s.exchange_s, 1e-6 * static_cast<double>(s.bytes) / s.exchange_s);
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
  const std::string good = head + R"("config": {"participants": 2}, "rows": [)" + row + R"("up to bytes": 4096})" + tail;
  EXPECT_EQ(transport_terms_from_json(good, "t.json").devices, 2);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {head + R"("config": {"participants": 2.5}, "rows": [)" + row + R"("up to bytes": 4096})" + tail, "participants"},
      {head + R"("config": {"participants": 1e30}, "rows": [)" + row + R"("up to bytes": 4096})" + tail, "participants"},
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
  EXPECT_EQ(failed.failed_rows,
            (std::vector<std::string>{"link bandwidth (device=0, direction=h2d)",
                                      "beff ring (transport=nccl, MSize bytes=4 KiB)"}));
  ASSERT_EQ(failed.transports.size(), 1u);  // the terms are still read, for --allow-failed

  const TransportTerms edited = transport_terms_from_json(file("FAILED", "", terms), "t.json");
  EXPECT_TRUE(edited.failed_rows.empty());
  EXPECT_FALSE(edited.input_passed());
}

}  // namespace
}  // namespace ferry::model
