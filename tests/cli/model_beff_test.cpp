// `ferry model beff --profile FILE` on results a user hands it: a file whose
// data arrived wrong is refused unless asked for, and then every line says so;
// the note gives the network figures the prediction used.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/beff/beff.hpp"
#include "cli/run_ferry.hpp"  // tests/cli
#include "core/atomic_file.hpp"

namespace ferry {
namespace {

// Two beff runs on the emulator, written once for every test here: one with a
// 4 KiB message corrupted (FAILED), one clean.
class ModelBeff : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char name[] = "/tmp/ferry-model-beff-XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    folder_ = name;
    failed_ = (folder_ / "failed.json").string();
    clean_ = (folder_ / "clean.json").string();
    const std::vector<std::string> run = {
        "run", "beff",        "--backend",     "emu",        "--quick", "--quiet",       "--devices",
        "0,1", "--transport", "p2p-ce,p2p-sm", "--min-time", "100us",   "--repetitions", "1"};
    setenv(beff::corrupt_variable, "4K", 1);
    std::vector<std::string> failed = run;
    failed.insert(failed.end(), {"--json", failed_});
    const Outcome f = ferry(failed);
    unsetenv(beff::corrupt_variable);
    ASSERT_EQ(f.code, 1) << f.err;
    std::vector<std::string> clean = run;
    clean.insert(clean.end(), {"--json", clean_});
    const Outcome c = ferry(clean);
    ASSERT_EQ(c.code, 0) << c.err;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(folder_); }

  static int failed_rows_in(const std::string& path) {
    int n = 0;
    const auto doc = nlohmann::json::parse(read_file(path));
    for (const auto& w : doc["workloads"])
      for (const auto& row : w["rows"]) n += row["check"] == "FAILED";
    return n;
  }

  static std::vector<std::string> printed_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) lines.push_back(line);
    return lines;
  }

  static std::string note_of(const std::string& path) {
    const auto doc = nlohmann::json::parse(read_file(path));
    return doc["workloads"][0]["notes"].back().get<std::string>();
  }

  static inline std::filesystem::path folder_;
  static inline std::string failed_, clean_;
};

TEST_F(ModelBeff, AResultsFileWithFailedRowsIsRefusedNamingTheFileAndTheRows) {
  ASSERT_EQ(failed_rows_in(failed_), 6);  // per transport: its b_eff, the 4 KiB ring row and participant 0's exchange
  const Outcome o = ferry({"model", "beff", "--profile", failed_});
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.err.find("'" + failed_ + "' failed verification"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("6 rows FAILED their check"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("beff ring (transport=p2p-ce, MSize bytes=4 KiB)"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("beff beff (transport=p2p-ce, devices=2)"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("; and 1 more"), std::string::npos) << o.err;  // five named, then a count
  EXPECT_NE(o.err.find("--allow-failed"), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("b_eff predicted"), std::string::npos) << o.out;
}

TEST_F(ModelBeff, ARunWhoseVerificationSaysFailedIsRefusedEvenWithoutAFailedRow) {
  auto doc = nlohmann::json::parse(read_file(clean_));
  doc["verification"] = "FAILED";
  const std::string path = (folder_ / "run-failed.json").string();
  write_file_atomically(path, doc.dump());
  const Outcome o = ferry({"model", "beff", "--profile", path});
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.err.find("its verification says FAILED"), std::string::npos) << o.err;
}

TEST_F(ModelBeff, AllowFailedModelsItAndEveryPrintedLineSaysTheInputFailed) {
  const std::string json = (folder_ / "prediction.json").string();
  const Outcome o =
      ferry({"model", "beff", "--profile", failed_, "--allow-failed", "--devices", "8,64", "--json", json});
  EXPECT_EQ(o.code, 0) << o.err;
  const std::vector<std::string> lines = printed_lines(o.out);
  ASSERT_GT(lines.size(), 5u) << o.out;
  for (const std::string& line : lines) EXPECT_EQ(line.rfind("[FAILED input] ", 0), 0u) << line;
  EXPECT_EQ(o.out.find("beff-model: PASSED"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("beff-model: predicted from FAILED input ('" + failed_ + "': 6 rows failed verification)"),
            std::string::npos)
      << o.out;

  const auto doc = nlohmann::json::parse(read_file(json));
  const auto& prediction = doc["workloads"][0];
  EXPECT_EQ(prediction["config"]["input_verification"], "FAILED");
  EXPECT_EQ(prediction["config"]["input_failed_rows"], 6);
  EXPECT_NE(prediction["notes"][0].get<std::string>().find("FAILED input"), std::string::npos);
  ASSERT_FALSE(prediction["rows"].empty());
  for (const auto& row : prediction["rows"]) EXPECT_EQ(row["note"], "from FAILED input");
}

TEST_F(ModelBeff, ACleanFileIsModelledWithoutTheMarker) {
  const Outcome o = ferry({"model", "beff", "--profile", clean_, "--allow-failed"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.find("FAILED"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("beff-model: PASSED"), std::string::npos) << o.out;
}

// The file a run leaves when it ends early: the rows it holds, and why and where it ended.
TEST_F(ModelBeff, AnIncompleteResultsFileIsRefusedNamingTheFileAndWhyTheRunEnded) {
  auto doc = nlohmann::json::parse(read_file(clean_));
  doc["incomplete"] = {
      {"reason", "interrupted by SIGINT"}, {"rows_done", 11}, {"steps_done", 12}, {"steps_planned", 40}};
  const std::string path = (folder_ / "incomplete.json").string();
  write_file_atomically(path, doc.dump());
  const Outcome o = ferry({"model", "beff", "--profile", path});
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.err.find("'" + path +
                       "' is incomplete: the run that wrote it ended early (interrupted by SIGINT; 11 rows, 12 of "
                       "40 steps)"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("--allow-incomplete"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(o.out.find("b_eff predicted"), std::string::npos) << o.out;

  const Outcome allowed = ferry({"model", "beff", "--profile", path, "--allow-incomplete"});
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_NE(allowed.out.find("beff-model: PASSED"), std::string::npos) << allowed.out;
  EXPECT_NE(allowed.out.find("note: incomplete input, modelled with --allow-incomplete: '" + path +
                             "' (interrupted by SIGINT"),
            std::string::npos)
      << allowed.out;
}

TEST_F(ModelBeff, HelpSaysAnIncompleteFileIsRefusedUnlessAllowed) {
  const Outcome o = ferry({"model", "beff", "--help"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("--allow-incomplete"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("ended early"), std::string::npos) << o.out;
}

TEST_F(ModelBeff, AModelRowWhoseRateIsNotAboveZeroIsRefusedNamingTheFileAndTheRow) {
  auto doc = nlohmann::json::parse(read_file(clean_));
  for (auto& w : doc["workloads"])
    for (auto& row : w["rows"])
      if (row["section"] == "model") row["params"]["B GB/s"] = 0;
  const std::string path = (folder_ / "zero-rate.json").string();
  write_file_atomically(path, doc.dump());
  const Outcome o = ferry({"model", "beff", "--profile", path});
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.err.find("'" + path + "'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("beff model (transport=p2p-ce, up to bytes="), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("\"B GB/s\" is 0"), std::string::npos) << o.err;
}

// Terms from one process say what the model assumes of larger rings there; terms from a rank per device do not.
TEST_F(ModelBeff, TermsFromOneProcessSayThatALargerRingThereIsOverPredicted) {
  const auto notes_of = [](const std::string& path) {
    const auto doc = nlohmann::json::parse(read_file(path));
    std::string all;
    for (const auto& note : doc["workloads"][0]["notes"]) all += note.get<std::string>() + "\n";
    return all;
  };
  const std::string one = (folder_ / "one-process.json").string();
  ASSERT_EQ(ferry({"model", "beff", "--profile", clean_, "--devices", "4", "--json", one}).code, 0);
  EXPECT_NE(notes_of(one).find("assumed: each device keeps the terms it had in the measured ring"), std::string::npos)
      << notes_of(one);
  // The same ring size as measured: nothing is assumed of a larger one.
  const std::string same = (folder_ / "same.json").string();
  ASSERT_EQ(ferry({"model", "beff", "--profile", clean_, "--devices", "2", "--json", same}).code, 0);
  EXPECT_EQ(notes_of(same).find("assumed:"), std::string::npos) << notes_of(same);
  // The same file as if mpirun had run it: participant 1 on rank 1.
  auto doc = nlohmann::json::parse(read_file(clean_));
  for (auto& w : doc["workloads"])
    for (auto& row : w["rows"])
      if (row["section"] == "exchange" && row["params"]["participant"] == 1) row["params"]["rank"] = 1;
  const std::string ranks_file = (folder_ / "ranks.json").string(), ranks = (folder_ / "ranks-model.json").string();
  write_file_atomically(ranks_file, doc.dump());
  ASSERT_EQ(ferry({"model", "beff", "--profile", ranks_file, "--devices", "4", "--json", ranks}).code, 0);
  EXPECT_EQ(notes_of(ranks).find("assumed:"), std::string::npos) << notes_of(ranks);
}

TEST_F(ModelBeff, TheNoteNamesTheNetworkFiguresUsed) {
  const std::string given = (folder_ / "given.json").string(), defaults = (folder_ / "defaults.json").string();
  ASSERT_EQ(ferry({"model", "beff", "--profile", clean_, "--network-bandwidth", "12.5GB/s", "--json", given}).code, 0);
  const std::string note = note_of(given);
  EXPECT_NE(note.find("12.5 GB/s a direction from --network-bandwidth 12.5GB/s"), std::string::npos) << note;
  EXPECT_NE(note.find("3 us a hop, the default"), std::string::npos) << note;
  EXPECT_EQ(note.find("400 Gb/s"), std::string::npos) << note;

  ASSERT_EQ(ferry({"model", "beff", "--profile", clean_, "--network-latency", "5us", "--json", defaults}).code, 0);
  const std::string default_bandwidth = note_of(defaults);
  EXPECT_NE(default_bandwidth.find("50 GB/s a direction, the default: one 400 Gb/s NIC per GPU"), std::string::npos)
      << default_bandwidth;
  EXPECT_NE(default_bandwidth.find("5 us a hop from --network-latency 5us"), std::string::npos) << default_bandwidth;
}

}  // namespace
}  // namespace ferry
