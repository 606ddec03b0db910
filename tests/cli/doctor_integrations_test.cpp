// `ferry doctor` where operators look, on the emulator: --quiet's one line and
// the exit codes a scheduler reads, --prometheus's file, and --baseline
// against the same node's earlier run, with each refusal of a file that cannot
// be one. Figures that move are provoked (FERRY_FAULT_DOCTOR=slow-graph=D
// sets every latency to its GPU model's reference and GPU D's graph per
// kernel to twice it, timed as a GPU's), so no verdict depends on the
// machine's pace.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "cli/run_ferry.hpp"
#include "doctor/faults.hpp"

// A namespace of its own: a unity build compiles it with the other command-line tests.
namespace ferry::doctor_integrations_test {
namespace {

namespace fs = std::filesystem;

class DoctorIntegrations : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv(doctor::fault_variable);
    dir_ = fs::temp_directory_path() /
           ("ferry-doctor-integrations-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    unsetenv(doctor::fault_variable);
    fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // A pass on two emulated GPUs with FERRY_FAULT_DOCTOR set to `fault` ("" for none).
  static Outcome doctor(const std::string& fault, std::vector<std::string> more = {}) {
    if (fault.empty()) unsetenv(doctor::fault_variable);
    else setenv(doctor::fault_variable, fault.c_str(), 1);
    std::vector<std::string> args = {"doctor", "--backend", "emu", "--devices", "0,1"};
    args.insert(args.end(), more.begin(), more.end());
    return ferry(args);
  }

 private:
  fs::path dir_;
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json findings_of(const std::string& path) {
  const nlohmann::json doc = nlohmann::json::parse(read(path));
  for (const auto& w : doc["workloads"])
    if (w["name"] == "doctor") return w["findings"];
  return nlohmann::json::array();
}

const nlohmann::json* find(const nlohmann::json& findings, const std::string& check, const std::string& subject) {
  for (const auto& f : findings)
    if (f["check"] == check && f["subject"] == subject) return &f;
  return nullptr;
}

// A results file with `edit` applied to its JSON.
void rewrite(const std::string& from, const std::string& to, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = nlohmann::json::parse(read(from));
  edit(doc);
  std::ofstream(to) << doc.dump();
}

TEST_F(DoctorIntegrations, QuietPrintsOneLineNamingTheFirstFailElseWarnAndTheExitCodeIsTheVerdicts) {
  const Outcome healthy = doctor("", {"--quiet"});
  EXPECT_EQ(healthy.code, 0) << healthy.err;
  EXPECT_TRUE(
      std::regex_match(healthy.out, std::regex(R"(ferry doctor: OK \(\d+ OK, 0 WARN, 0 FAIL, \d+ not judged\)\n)")))
      << healthy.out;

  const Outcome warned = doctor("other-process=1", {"--quiet"});
  EXPECT_EQ(warned.code, 0) << "a WARN is not a failure: " << warned.err;
  EXPECT_TRUE(std::regex_match(
      warned.out,
      std::regex(R"(ferry doctor: WARN other processes \(GPU 1\): .* \(\d+ OK, 1 WARN, 0 FAIL, \d+ not judged\)\n)")))
      << warned.out;

  const Outcome failed = doctor("pcie=4x8,other-process=1", {"--quiet"});
  EXPECT_EQ(failed.code, 1) << failed.err;
  EXPECT_TRUE(std::regex_match(
      failed.out,
      std::regex(
          R"(ferry doctor: FAIL pcie link \(GPU 0\): Gen4 x8, expected Gen5 x16 \(\d+ OK, 1 WARN, [1-9]\d* FAIL, \d+ not judged\)\n)")))
      << "the first FAIL, before the WARN: " << failed.out;

  const Outcome bad = doctor("", {"--quiet", "--budget", "soon"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.out, "");
}

TEST_F(DoctorIntegrations, APrometheusFileHasAVerdictPerCheckAndAFigurePerRateWithTheGpusUuid) {
  const std::string prom = path("doctor.prom");
  const Outcome o = doctor("pcie=4x8", {"--prometheus", prom, "--json", path("doctor.json")});
  ASSERT_EQ(o.code, 1) << o.out << o.err;
  const std::string text = read(prom);
  const nlohmann::json gpus = nlohmann::json::parse(read(path("doctor.json")))["machine"]["gpus"];
  const std::string uuid = gpus[0]["uuid"];
  EXPECT_EQ(uuid.rfind("EMU-", 0), 0u) << uuid;
  EXPECT_NE(text.find("# TYPE ferry_doctor_verdict gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ferry_doctor_verdict{Hostname=\"" +
                      std::string(nlohmann::json::parse(read(path("doctor.json")))["machine"]["host"]["hostname"]) +
                      "\",check=\"pcie link\",subject=\"GPU 0\",gpu=\"0\",UUID=\"" + uuid + "\"} 2\n"),
            std::string::npos)
      << "the FAIL as 2:\n"
      << text;
  EXPECT_NE(text.find("check=\"peer access\",subject=\"GPU 0 -> 1\",gpu=\"0\",UUID=\"" + uuid +
                      "\",peer_gpu=\"1\",peer_UUID=\"" + std::string(gpus[1]["uuid"]) + "\"} 0\n"),
            std::string::npos)
      << text;
  // The link's rate the fault set: Gen4 x8 against Gen5 x16, in bytes per second.
  EXPECT_TRUE(std::regex_search(
      text,
      std::regex(
          R"(\nferry_doctor_rate_bytes_per_second\{[^}]*check="pcie link",subject="GPU 1"[^}]*\} 15\d{9}(\.\d+)?\n)")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\nferry_doctor_findings\{[^}]*verdict="FAIL"\} [1-9]\d*\n)")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\nferry_doctor_last_run_timestamp_seconds\{[^}]*\} \d)"))) << text;
  for (const auto& entry : fs::directory_iterator(path("")))
    EXPECT_TRUE(entry.path().filename() == "doctor.prom" || entry.path().filename() == "doctor.json")
        << "a temporary file was left: " << entry.path();
}

TEST_F(DoctorIntegrations, APrometheusPathInAMissingFolderIsRefusedBeforeThePass) {
  const Outcome o = doctor("", {"--prometheus", path("no/such/folder/doctor.prom"), "--json", path("doctor.json")});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--prometheus"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("no/such/folder"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(path("doctor.json"))) << "refused before anything was written";
}

TEST_F(DoctorIntegrations, AFigureWorseThanTheNodesOwnBaselineIsAWarnWithBothValuesAndTheDate) {
  // The baseline: GPU 1's graph per kernel at twice its reference (a WARN, not a FAIL, so it may be saved).
  const std::string base = path("base.json");
  const Outcome saved = doctor("slow-graph=1", {"--save-baseline", base});
  ASSERT_EQ(saved.code, 0) << saved.out << saved.err;
  ASSERT_TRUE(fs::exists(base)) << saved.out;
  const std::string date = nlohmann::json::parse(read(base))["created_utc"];

  // Now GPU 0's is twice its own earlier figure, and GPU 1's half: GPU 0 alone is named. launch + sync, at its
  // reference in both runs, is never held against a baseline (too unsteady run to run on a healthy GPU).
  const std::string now = path("now.json");
  const Outcome o = doctor("slow-graph=0", {"--baseline", base, "--json", now});
  EXPECT_EQ(o.code, 0) << "a baseline's finding is a WARN: " << o.out << o.err;
  const nlohmann::json findings = findings_of(now);
  const nlohmann::json* named = find(findings, "graph per kernel vs baseline", "GPU 0");
  ASSERT_NE(named, nullptr) << o.out;
  EXPECT_EQ((*named)["verdict"], "WARN");
  EXPECT_EQ((*named)["unit"], "s");
  EXPECT_DOUBLE_EQ((*named)["value"].get<double>(), 2 * (*named)["model"].get<double>());
  EXPECT_NE((*named)["cause"].get<std::string>().find("since " + date), std::string::npos) << (*named)["cause"];
  EXPECT_NE((*named)["basis"].get<std::string>().find(base), std::string::npos) << (*named)["basis"];
  EXPECT_EQ(find(findings, "graph per kernel vs baseline", "GPU 1"), nullptr) << "GPU 1 got faster";
  const nlohmann::json* sum = find(findings, "baseline", "host");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ((*sum)["verdict"], "WARN");
  EXPECT_TRUE(std::regex_match((*sum)["measured"].get<std::string>(), std::regex(R"(1 of \d+ figures worse)")))
      << (*sum)["measured"];

  // A margin wider than the change: nothing named, the sum OK.
  const std::string wide = path("wide.json");
  ASSERT_EQ(doctor("slow-graph=0", {"--baseline", base, "--baseline-margin", "60%", "--json", wide}).code, 0);
  EXPECT_EQ(find(findings_of(wide), "graph per kernel vs baseline", "GPU 0"), nullptr);
  EXPECT_EQ((*find(findings_of(wide), "baseline", "host"))["verdict"], "OK");
  EXPECT_EQ(doctor("", {"--baseline", base, "--baseline-margin", "10"}).code, 2) << "a margin without its %";
}

TEST_F(DoctorIntegrations, ABaselineThatCannotBeOneIsRefusedNamingWhyAndNothingIsWritten) {
  const std::string healthy = path("healthy.json");
  ASSERT_EQ(doctor("slow-graph=1", {"--json", healthy}).code, 0);
  const std::string failed = path("failed.json");
  ASSERT_EQ(doctor("pcie=4x8", {"--json", failed}).code, 1);
  std::ofstream(path("text.json")) << "not json";
  const std::string link = path("link.json");
  ASSERT_EQ(ferry(quick_link({"--json", link})).code, 0);
  rewrite(healthy, path("other-gpus.json"), [](nlohmann::json& d) { d["machine"]["gpus"][1]["uuid"] = "GPU-other"; });
  rewrite(healthy, path("no-uuids.json"), [](nlohmann::json& d) {
    for (auto& g : d["machine"]["gpus"]) g.erase("uuid");
  });
  rewrite(healthy, path("cuda.json"), [](nlohmann::json& d) { d["machine"]["backend"] = "cuda"; });
  rewrite(healthy, path("cut.json"), [](nlohmann::json& d) {
    d["incomplete"] = {{"reason", "interrupted by SIGINT"}};
  });
  const std::pair<std::string, std::string> cases[] = {
      {path("text.json"), "is not JSON"},
      {link, "holds no doctor findings"},
      {failed, "has FAIL findings (pcie link (GPU 0)"},
      {path("other-gpus.json"), "is from other GPUs: this run's GPU 1 (EMU-"},
      {path("no-uuids.json"), "names no GPU by UUID"},
      {path("cuda.json"), "comes from the cuda backend and this run is on the emu"},
      {path("cut.json"), "is an incomplete run"},
      {path("missing.json"), "missing.json"},
  };
  for (const auto& [file, why] : cases) {
    const std::string out = path("out.json");
    const Outcome o = doctor("", {"--baseline", file, "--json", out, "--prometheus", path("out.prom")});
    EXPECT_EQ(o.code, 2) << file << ": " << o.out << o.err;
    EXPECT_NE(o.err.find(why), std::string::npos) << file << ": " << o.err;
    EXPECT_FALSE(fs::exists(out) || fs::exists(out + ".partial") || fs::exists(path("out.prom"))) << file;
  }
}

TEST_F(DoctorIntegrations, ARunWithAFailSavesNoBaselineAndLeavesTheOldOneAsItWas) {
  const std::string base = path("base.json");
  std::ofstream(base) << "the old baseline";
  const Outcome o = doctor("pcie=4x8", {"--save-baseline", base});
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.out.find("baseline: not saved to " + base + ": pcie link (GPU 0) is FAIL"), std::string::npos) << o.out;
  EXPECT_EQ(read(base), "the old baseline");
}

}  // namespace
}  // namespace ferry::doctor_integrations_test
