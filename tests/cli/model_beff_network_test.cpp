// `ferry model beff --network FILE --measured FILE`: the hop between nodes as
// a ring across hosts measured it, and a measured ring set beside its
// prediction. The files are one emulator run of host-staged, and that run with
// its participants placed on two hosts and its terms set to known figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/beff/beff.hpp"
#include "cli/run_ferry.hpp"  // tests/cli
#include "core/atomic_file.hpp"

namespace ferry {
namespace model_beff_network {

constexpr double hop_latency_us = 2000, hop_GBps = 0.001;  // far slower than the emulator's host-staged

class ModelBeffNetwork : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char name[] = "/tmp/ferry-model-network-XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    folder_ = name;
    local_ = path("local.json");
    const Outcome o = ferry({"run", "beff", "--backend", "emu", "--quick", "--quiet", "--devices", "0,1", "--transport",
                             "host-staged", "--min-time", "100us", "--repetitions", "1", "--json", local_});
    ASSERT_EQ(o.code, 0) << o.err;
    // The same ring with participant p on host node(p+1), its hop at the known figures.
    across_ = edited("across.json", [](nlohmann::json& row) {
      if (row["section"] == "exchange") row["params"]["host"] = row["params"]["participant"] == 0 ? "node1" : "node2";
      if (row["section"] == "model") {
        row["value"] = hop_latency_us;
        row["params"]["B GB/s"] = hop_GBps;
      }
    });
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(folder_); }

  static std::string path(const std::string& file) { return (folder_ / file).string(); }

  // local_ with `edit` applied to every row of its beff workload, written to `file`.
  static std::string edited(const std::string& file, const std::function<void(nlohmann::json&)>& edit) {
    auto doc = nlohmann::json::parse(read_file(local_));
    for (auto& w : doc["workloads"])
      for (auto& row : w["rows"]) edit(row);
    write_file_atomically(path(file), doc.dump());
    return path(file);
  }

  // `ferry model beff --profile local_ ARGS... --json FILE` (FILE in the test's folder).
  static Outcome model_beff(const std::string& file, std::vector<std::string> args) {
    args.insert(args.begin(), {"model", "beff", "--profile", local_});
    args.insert(args.end(), {"--json", path(file)});
    return ferry(args);
  }

  static nlohmann::json prediction(const std::string& file) {
    return nlohmann::json::parse(read_file(file))["workloads"][0];
  }

  static nlohmann::json row_of(const nlohmann::json& workload, int devices) {
    for (const auto& row : workload["rows"])
      if (row["params"]["devices"] == devices) return row;
    ADD_FAILURE() << "no row for a ring of " << devices;
    return {};
  }

  static std::string notes(const nlohmann::json& workload) {
    std::string all;
    for (const auto& note : workload["notes"]) all += note.get<std::string>() + "\n";
    return all;
  }

  static inline std::filesystem::path folder_;
  static inline std::string local_, across_;
};

TEST_F(ModelBeffNetwork, AHopMeasuredAcrossHostsPacesTheRingAndTheNotesSayWhereItCameFrom) {
  const Outcome o = model_beff("paced.json", {"--network", across_, "--devices", "4", "--per-node", "1"});
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json p = prediction(path("paced.json"));
  const nlohmann::json row = row_of(p, 4);
  // The ring moves at the measured hop's pace: L / (t_lat + L / B), averaged over the definition's sizes.
  double expected = 0;
  const std::vector<std::uint64_t> sizes = beff::definition_sizes();
  for (std::uint64_t bytes : sizes) expected += bytes / (hop_latency_us * 1e-6 + bytes / (hop_GBps * 1e9));
  expected /= static_cast<double>(sizes.size());
  EXPECT_NEAR(row["params"]["per device GB/s"].get<double>(), expected / 1e9, 1e-9 * expected / 1e9);
  EXPECT_EQ(row["params"]["network"], "measured (1.0 MB/s, 2000 us)");
  EXPECT_EQ(p["config"]["network_measured"], across_);
  const std::string all = notes(p);
  EXPECT_NE(all.find("network for host-staged: measured across hosts in " + across_ +
                     ", a ring of 2 on node1, node2: 1.0 MB/s a direction and 2000 us a hop"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("assumed: every hop between nodes costs what a hop of the measured ring did"), std::string::npos)
      << all;
  // Every transport crossing nodes has a measured hop: the given figures are not named as used.
  EXPECT_EQ(all.find("the default"), std::string::npos) << all;
}

TEST_F(ModelBeffNetwork, ATransportTheNetworkFileLacksKeepsTheGivenHopAndSaysSo) {
  const std::string other = edited("other-transport.json", [](nlohmann::json& row) {
    if (row["section"] == "exchange") row["params"]["host"] = row["params"]["participant"] == 0 ? "node1" : "node2";
    if (row["params"].contains("transport")) row["params"]["transport"] = "mpi-staged";
  });
  ASSERT_EQ(model_beff("unmeasured.json", {"--network", other, "--devices", "4", "--per-node", "1"}).code, 0);
  const nlohmann::json p = prediction(path("unmeasured.json"));
  EXPECT_EQ(row_of(p, 4)["params"]["network"], "default (50.0 GB/s, 3 us)");
  EXPECT_NE(notes(p).find("where not measured, 50 GB/s a direction, the default"), std::string::npos) << notes(p);
}

TEST_F(ModelBeffNetwork, AGivenRateBelowAGigabyteASecondIsNamedInMegabytes) {
  ASSERT_EQ(model_beff("slow-link.json", {"--network-bandwidth", "6.25MB/s", "--devices", "4", "--per-node", "1"}).code,
            0);
  const std::string all = notes(prediction(path("slow-link.json")));
  EXPECT_NE(all.find("6.25 MB/s a direction from --network-bandwidth 6.25MB/s"), std::string::npos) << all;
}

TEST_F(ModelBeffNetwork, ANetworkRingWithTwoParticipantsOnOneHostIsRefusedNamingThem) {
  const Outcome o = ferry({"model", "beff", "--profile", local_, "--network", local_});
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.err.find("--network '" + local_ + "': participants 0 and 1 of its ring are on one host"),
            std::string::npos)
      << o.err;
}

TEST_F(ModelBeffNetwork, ANetworkOrMeasuredFileWithAFailedRowIsRefused) {
  const std::string failed = edited("failed.json", [](nlohmann::json& row) {
    if (row["section"] == "exchange") row["params"]["host"] = row["params"]["participant"] == 0 ? "node1" : "node2";
    if (row["section"] == "ring" && row["params"]["MSize bytes"] == 4096) row["check"] = "FAILED";
  });
  for (const char* option : {"--network", "--measured"}) {
    const Outcome o = ferry({"model", "beff", "--profile", local_, option, failed});
    EXPECT_EQ(o.code, 2) << option << o.out;
    EXPECT_NE(o.err.find(std::string(option) + " '" + failed + "' failed verification: 1 row FAILED its check"),
              std::string::npos)
        << o.err;
  }
}

TEST_F(ModelBeffNetwork, AMeasuredRingIsSetBesideThePredictionOfItsSizeWithTheResidual) {
  ASSERT_EQ(model_beff("beside.json", {"--measured", local_, "--devices", "2,4", "--per-node", "2"}).code, 0);
  const nlohmann::json p = prediction(path("beside.json"));
  // Within one node the prediction of the measured size is the run's own fitted model, so the residual is the
  // one the run printed beside its b_eff.
  const nlohmann::json run = nlohmann::json::parse(read_file(local_));
  nlohmann::json beff_row;
  for (const auto& row : run["workloads"][0]["rows"])
    if (row["section"] == "beff") beff_row = row;
  ASSERT_FALSE(beff_row.is_null());
  const nlohmann::json two = row_of(p, 2);
  const auto percent = [](const nlohmann::json& text) { return std::strtod(text.get<std::string>().c_str(), nullptr); };
  EXPECT_NEAR(percent(two["params"]["residual (measured)"]), percent(beff_row["params"]["residual (fitted)"]), 0.11);
  EXPECT_NEAR(std::strtod(two["params"]["measured per device GB/s"].get<std::string>().c_str(), nullptr),
              beff_row["params"]["per device GB/s"].get<double>(),
              1e-3 * beff_row["params"]["per device GB/s"].get<double>());
  // A ring of another size has nothing measured beside it.
  EXPECT_EQ(row_of(p, 4)["params"]["residual (measured)"], "-");
  EXPECT_EQ(p["config"]["measured"], local_);
  EXPECT_NE(notes(p).find("measured: " + local_ + ", a ring of 2 on "), std::string::npos) << notes(p);
  EXPECT_NE(notes(p).find("(2 a host): host-staged "), std::string::npos) << notes(p);

  // Predicted a device a node, the measured ring's two a host is said.
  ASSERT_EQ(model_beff("apart.json", {"--measured", local_, "--devices", "2", "--per-node", "1"}).code, 0);
  const std::string apart = notes(prediction(path("apart.json")));
  EXPECT_NE(apart.find("it has 2 devices a host where the prediction has 1 (--per-node)"), std::string::npos) << apart;
}

}  // namespace model_beff_network
}  // namespace ferry
