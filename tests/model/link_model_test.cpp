#include "model/link_model.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <tuple>

#include "core/error.hpp"
#include "model/profile.hpp"

namespace ferry::model {
namespace {

TEST(LinkModel, PcieRatesAfterLineEncoding) {
  EXPECT_NEAR(pcie_Bps(5, 16), 63.015e9, 0.01e9);  // 32 GT/s x16, 128b/130b
  EXPECT_NEAR(pcie_Bps(4, 16), 31.508e9, 0.01e9);
  EXPECT_NEAR(pcie_Bps(3, 16), 15.754e9, 0.01e9);
  EXPECT_NEAR(pcie_Bps(2, 8), 4.0e9, 1e6);       // 5 GT/s x8, 8b/10b
  EXPECT_NEAR(pcie_Bps(6, 16), 121.0e9, 0.1e9);  // 64 GT/s, 242B/256B flits
  EXPECT_EQ(pcie_Bps(0, 16), 0);
  EXPECT_EQ(pcie_Bps(5, 0), 0);
  EXPECT_EQ(pcie_name(5, 16), "PCIe Gen5 x16");
}

TEST(LinkModel, TransferTimeIsLatencyPlusBytesOverBandwidth) {
  EXPECT_DOUBLE_EQ(transfer_seconds(1e9, 1e-5, 1e10), 0.10001);
  EXPECT_NEAR(transfer_Bps(1e9, 0, 5e10), 5e10, 1);
  EXPECT_LT(transfer_Bps(4096, 5e-6, 5e10), 1e9);  // small copies are latency-bound
}

TEST(LinkModel, NvlinkPerLinkRates) {
  EXPECT_EQ(nvlink_Bps_per_link(4), 25e9);
  EXPECT_EQ(nvlink_Bps_per_link(5), 50e9);
  EXPECT_EQ(nvlink_Bps_per_link(0), 0);
}

// Within a part in 10^12: the formula's own rounding, far below a term scaled by 1.1 or dropped.
void expect_link_figure(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-12 * expected) << "expected " << expected;
}

TEST(LinkModel, EveryPcieGenerationIsTransfersTimesEncodingTimesLanesOverEightBits) {
  // A width per generation, each a different power of two, so that neither the lanes nor a generation's
  // transfer rate nor its encoding can change without moving the figure.
  expect_link_figure(pcie_Bps(1, 1), 2.5e9 * 8 / 10 * 1 / 8);
  expect_link_figure(pcie_Bps(2, 2), 5e9 * 8 / 10 * 2 / 8);
  expect_link_figure(pcie_Bps(3, 4), 8e9 * 128 / 130 * 4 / 8);
  expect_link_figure(pcie_Bps(4, 8), 16e9 * 128 / 130 * 8 / 8);
  expect_link_figure(pcie_Bps(5, 16), 32e9 * 128 / 130 * 16 / 8);
  expect_link_figure(pcie_Bps(6, 32), 64e9 * 242 / 256 * 32 / 8);
  EXPECT_EQ(pcie_Bps(7, 16), 0) << "a generation the table does not hold is unknown";
}

TEST(LinkModel, EveryNvlinkVersionHasItsPerLinkRate) {
  EXPECT_EQ(nvlink_Bps_per_link(1), 20e9);
  EXPECT_EQ(nvlink_Bps_per_link(2), 25e9);
  EXPECT_EQ(nvlink_Bps_per_link(3), 25e9);
  EXPECT_EQ(nvlink_Bps_per_link(6), 0);
}

TEST(LinkModel, APeerLinkIsItsNvlinksTimesTheirRateElseTheSlowerGpusPcie) {
  Machine m;
  m.gpus.push_back({.index = 0, .pcie = {.max_generation = 5, .max_width = 16}});
  m.gpus.push_back({.index = 1, .pcie = {.max_generation = 4, .max_width = 8}});
  m.gpus.push_back({.index = 2, .pcie = {.max_generation = 3, .max_width = 4}});
  m.peers.push_back({.from = 0, .to = 1, .nvlinks = 7, .nvlink_version = 3});
  m.peers.push_back({.from = 1, .to = 0, .nvlinks = 0, .nvlink_version = 0});
  const RatedLink nvlink = peer_link(m, 0, 1);
  EXPECT_EQ(nvlink.Bps, 7 * 25e9);
  EXPECT_EQ(nvlink.basis, "7 x NVLink3");
  const RatedLink back = peer_link(m, 1, 0);
  expect_link_figure(back.Bps, 16e9 * 128 / 130 * 8 / 8);
  EXPECT_EQ(back.basis, "PCIe Gen4 x8") << "no NVLink that way: the slower of the two GPUs' PCIe";
  EXPECT_EQ(peer_link(m, 0, 2).basis, "PCIe Gen3 x4") << "no peer facts: the slower PCIe, whichever end it is";
  EXPECT_EQ(peer_link(m, 2, 0).basis, "PCIe Gen3 x4");
  EXPECT_EQ(gpu_pcie(m, 1).basis, "PCIe Gen4 x8");
  EXPECT_EQ(peer_link(m, 0, 3).Bps, 0) << "a GPU the machine does not describe: unknown";
}

TEST(LinkModel, ADeviceCopyIsHalfTheMemoryBandwidth) { EXPECT_EQ(device_copy_Bps(3352e9), 1676e9); }

TEST(LinkModel, ATransfersRateIsItsBytesOverLatencyPlusBytesOverBandwidth) {
  // 6 MB at 10 GB/s is 0.6 ms; with a 0.4 ms latency the transfer takes 1 ms: 6 GB/s. Both terms of
  // different sizes, so that either one scaled or dropped moves the rate.
  expect_link_figure(transfer_seconds(6e6, 4e-4, 1e10), 1e-3);
  expect_link_figure(transfer_Bps(6e6, 4e-4, 1e10), 6e9);
}

TEST(Profile, RoundTripsThroughJson) {
  MachineProfile p;
  p.backend = "cuda";
  p.gpu_timings = true;
  p.devices.push_back({.device = 0,
                       .name = "H100",
                       .h2d_Bps = 54.8e9,
                       .flag_round_trip_s = 3e-6,
                       .flag_round_trip_release_s = 3.7e-6,
                       .queued_both_ways = {{4096, 2e-6}, {1 << 20, 24e-6}},
                       .zero_copy_under_load = {{16, 40e9, 12e-6}}});
  p.peers.push_back({.from = 0, .to = 1, .direct_access = true, .copy_Bps = 3e11, .latency_s = 1e-5});
  const MachineProfile q = profile_from_json(profile_to_json(p), "test");
  EXPECT_EQ(q.backend, "cuda");
  EXPECT_DOUBLE_EQ(q.device(0).h2d_Bps, 54.8e9);
  EXPECT_DOUBLE_EQ(q.device(0).flag_round_trip_s, 3e-6);
  EXPECT_DOUBLE_EQ(q.device(0).flag_round_trip_release_s, 3.7e-6);
  ASSERT_EQ(q.device(0).queued_both_ways.size(), 2u);
  EXPECT_DOUBLE_EQ(q.device(0).queued_both_ways[1].seconds, 24e-6);
  ASSERT_EQ(q.device(0).zero_copy_under_load.size(), 1u);
  EXPECT_EQ(q.device(0).zero_copy_under_load[0].teams, 16);
  EXPECT_DOUBLE_EQ(q.device(0).zero_copy_under_load[0].read_round_trip_s, 12e-6);
  EXPECT_EQ(q.peers.at(0).to, 1);
  EXPECT_THROW(q.device(3), UsageError);
}

TEST(Profile, AMalformedOrForeignFileIsOneClearError) {
  // 1e999 is past a double's range: nlohmann throws out_of_range, not parse_error (found by fuzzing).
  for (const char* bad :
       {"not json", "{}", "[1e999]", R"({"schema": "ferry.results/1"})", R"({"schema": "ferry.profile/1"})",
        R"({"schema": "ferry.profile/1", "backend": "cuda", "gpu_timings": true,
                              "devices": [{"device": 0}], "peers": []})"}) {
    try {
      profile_from_json(bad, "p.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'p.json' is not a ferry machine profile"), std::string::npos) << e.what();
    }
  }
}

TEST(Profile, AWholeNumberFieldHoldingAFloatOrTooLargeANumberIsRefusedNamingIt) {
  // nlohmann converts either to an int with undefined behaviour (found by fuzzing under UBSan).
  MachineProfile p;
  p.backend = "cuda";
  p.devices.push_back({.device = 0, .h2d_Bps = 1e9});
  const std::string good = profile_to_json(p);
  ASSERT_EQ(profile_from_json(good, "p.json").devices.size(), 1u);
  const auto at = good.find("\"device\": 0");
  ASSERT_NE(at, std::string::npos) << good;
  for (const char* value : {"0.5", "4294967296", "-2147483649", "1e300"}) {
    std::string bad = good;
    bad.replace(at, std::string("\"device\": 0").size(), std::string("\"device\": ") + value);
    try {
      profile_from_json(bad, "p.json");
      ADD_FAILURE() << "accepted device " << value;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("\"device\" is"), std::string::npos) << e.what();
    }
  }
}

TEST(Profile, FiguresAddedLaterAreOptionalWhenRead) {
  MachineProfile p;
  p.backend = "cuda";
  p.devices.push_back({.device = 0, .h2d_Bps = 1e9});
  std::string text = profile_to_json(p);
  for (const char* key : {"\"zero_copy_both_Bps\"", "\"mapped_read_latency_s\"", "\"queued_h2d\"",
                          "\"flag_round_trip_release_s\"", "\"chunk_echo_s\""}) {
    const auto at = text.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    text.replace(at, std::string(key).size(), "\"older_field\"");
  }
  const MachineProfile q = profile_from_json(text, "old.json");
  EXPECT_EQ(q.device(0).zero_copy_both_Bps, 0) << "not measured";
  EXPECT_EQ(q.device(0).flag_round_trip_release_s, 0);
  EXPECT_EQ(q.device(0).chunk_echo_s, 0);
  EXPECT_TRUE(q.device(0).queued_h2d.empty());
}

// A profile with one figure of `key` set to `value` in the first entry of `list` ("devices" or "peers"), or in
// the first element of that entry's `inner` list when one is named.
std::string with_figure(const char* list, const char* inner, const char* key, const char* value) {
  MachineProfile p;
  p.backend = "cuda";
  p.devices.push_back(
      {.device = 0, .h2d_Bps = 50e9, .queued_h2d = {{4096, 2e-6}}, .zero_copy_under_load = {{16, 40e9, 12e-6}}});
  p.peers.push_back(
      {.from = 0, .to = 1, .direct_access = true, .copy_Bps = 3e11, .latency_s = 1e-5, .copy_times = {{8, 2e-6}}});
  auto doc = nlohmann::ordered_json::parse(profile_to_json(p));
  nlohmann::ordered_json& entry = inner ? doc[list][0][inner][0] : doc[list][0];
  entry[key] = nlohmann::ordered_json::parse(value);
  return doc.dump(1);
}

TEST(Profile, ANegativeFigureIsRefusedNamingTheFileWhereItIsAndTheField) {
  struct Case {
    const char *list, *inner, *key, *where;
  };
  for (const Case& c :
       {Case{"devices", nullptr, "h2d_Bps", "device 0"}, Case{"devices", nullptr, "flag_round_trip_s", "device 0"},
        Case{"devices", nullptr, "zero_copy_both_Bps", "device 0"},
        Case{"devices", "queued_h2d", "seconds", "device 0"},
        Case{"devices", "zero_copy_under_load", "Bps", "device 0"}, Case{"peers", nullptr, "copy_Bps", "peer 0 -> 1"},
        Case{"peers", nullptr, "sm_push_Bps", "peer 0 -> 1"}, Case{"peers", "copy_times", "seconds", "peer 0 -> 1"}}) {
    try {
      profile_from_json(with_figure(c.list, c.inner, c.key, "-1e-6"), "p.json");
      ADD_FAILURE() << "accepted a negative " << c.key;
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("'p.json'"), std::string::npos) << message;
      EXPECT_NE(message.find(c.where), std::string::npos) << message;
      EXPECT_NE(message.find(std::string("\"") + c.key + "\" is -1e-06"), std::string::npos) << message;
    }
  }
}

// 0 is how a profile says a figure was not measured (pinned copies under --memory mapped, PCIe on the emulator);
// a time or rate in a list of measured sizes, or a peer's copy figures, are measured wherever they are written.
TEST(Profile, ZeroIsRefusedWhereAFigureIsAlwaysMeasuredAndReadsAsNotMeasuredElsewhere) {
  EXPECT_EQ(profile_from_json(with_figure("devices", nullptr, "h2d_Bps", "0"), "p.json").device(0).h2d_Bps, 0);
  EXPECT_EQ(profile_from_json(with_figure("peers", nullptr, "sm_push_Bps", "0"), "p.json").peers[0].sm_push_Bps, 0);
  for (const auto& [list, inner, key] : {std::tuple{"devices", "queued_h2d", "seconds"},
                                         std::tuple{"devices", "zero_copy_under_load", "read_round_trip_s"},
                                         std::tuple{"peers", "copy_times", "seconds"},
                                         std::tuple{"peers", static_cast<const char*>(nullptr), "latency_s"}}) {
    try {
      profile_from_json(with_figure(list, inner, key, "0"), "p.json");
      ADD_FAILURE() << "accepted 0 for " << key;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + key + "\" is 0"), std::string::npos) << e.what();
    }
  }
}

// JSON has no NaN or infinity: nlohmann refuses the token, or a number past a double's range, before a field is read.
TEST(Profile, NanOrInfinityIsRefusedAsInvalidJsonNamingTheFile) {
  for (const char* value : {"NaN", "Infinity", "1e999", "-1e999"}) {
    std::string text = with_figure("devices", nullptr, "h2d_Bps", "1");
    const auto at = text.find("\"h2d_Bps\": 1");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, std::string("\"h2d_Bps\": 1").size(), std::string("\"h2d_Bps\": ") + value);
    try {
      profile_from_json(text, "p.json");
      ADD_FAILURE() << "accepted " << value;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'p.json' is not a ferry machine profile: invalid JSON"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Profile, SecondsAtASizeAreLinearBetweenMeasuredSizesAndExtendedBeyondThem) {
  const std::vector<CopyTime> times = {{1000, 2e-6}, {2000, 3e-6}, {4000, 5e-6}};
  EXPECT_DOUBLE_EQ(seconds_at(times, 1500), 2.5e-6);
  EXPECT_DOUBLE_EQ(seconds_at(times, 4000), 5e-6);
  EXPECT_DOUBLE_EQ(seconds_at(times, 8000), 9e-6) << "along the last two";
  EXPECT_DOUBLE_EQ(seconds_at(times, 500), 1.5e-6) << "along the first two";
  EXPECT_EQ(seconds_at({}, 100), 0);
}

TEST(Profile, AMissingFileIsAUsageErrorNamingIt) {
  try {
    read_profile("/nonexistent/profile.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/profile.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace ferry::model
