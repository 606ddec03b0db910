// `ferry doctor` on the emulator: healthy, it reports nothing its nature does not
// explain; each condition provoked by FERRY_FAULT_DOCTOR or the environment is
// named with its cause, and a FAIL exits 1.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/run_ferry.hpp"
#include "doctor/facts.hpp"
#include "doctor/faults.hpp"

namespace ferry {
namespace {

// The variables doctor reports, unset for the test and put back after it.
class Doctor : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, effect] : doctor::path_variables())
      if (const char* value = std::getenv(name.c_str())) saved_.emplace_back(name, value);
    for (const auto& [name, effect] : doctor::path_variables()) unsetenv(name.c_str());
    unsetenv(doctor::fault_variable);
  }
  void TearDown() override {
    for (const auto& [name, effect] : doctor::path_variables()) unsetenv(name.c_str());
    unsetenv(doctor::fault_variable);
    unsetenv("FERRY_FAULT_CORRUPT_OUTPUT");
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }
  // A pair where a check needs one; one GPU elsewhere, since each run is a whole pass.
  static Outcome doctor(std::vector<std::string> more = {}, const std::string& devices = "0,1") {
    std::vector<std::string> args = {"doctor", "--backend", "emu", "--devices", devices};
    args.insert(args.end(), more.begin(), more.end());
    return ferry(args);
  }

 private:
  std::vector<std::pair<std::string, std::string>> saved_;
};

bool says(const Outcome& o, const std::string& text) { return o.out.find(text) != std::string::npos; }

TEST_F(Doctor, AHealthyEmulatorHasNoWarningOrFailureAndWritesEveryCheck) {
  const std::string json = (std::filesystem::temp_directory_path() / "ferry-doctor.json").string();
  const std::string csv = (std::filesystem::temp_directory_path() / "ferry-doctor.csv").string();
  const Outcome o = doctor({"--json", json, "--csv", csv});
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(says(o, " 0 WARN, 0 FAIL")) << o.out;
  EXPECT_TRUE(says(o, "the emulator's timings are CPU timings")) << o.out;
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<std::string> workloads;
  std::size_t findings = 0;
  std::vector<std::string> nvml_says_nothing;  // what the emulator leaves to NVML: not judged
  for (const auto& w : doc["workloads"]) {
    workloads.push_back(w["name"]);
    if (w["name"] != "doctor") continue;
    findings = w["findings"].size();
    for (const auto& f : w["findings"])
      if (f["verdict"] == "-" && f["basis"] == "NVML does not say" && f["subject"] == "GPU 1")
        nvml_says_nothing.push_back(f["check"]);
  }
  EXPECT_EQ(nvml_says_nothing, (std::vector<std::string>{"other processes", "persistence mode", "clock events",
                                                         "mig mode", "compute mode", "pcie traffic"}));
  EXPECT_EQ(workloads, (std::vector<std::string>{"link", "doctor"}));
  EXPECT_EQ(findings, 27u)
      << "verification; a pcie link, numa, cpu affinity, pinned memory node, other processes, persistence mode, clock "
         "events, mig mode, compute mode and pcie traffic row per GPU; two peer rows; environment, figures, nccl vs "
         "p2p-ce for the pair, time";
  std::ifstream rows(csv);
  std::stringstream text;
  text << rows.rdbuf();
  EXPECT_NE(text.str().find("\nlink,"), std::string::npos) << "the CSV holds link's rows";
  std::filesystem::remove(json);
  std::filesystem::remove(csv);
}

TEST_F(Doctor, ALinkTrainedLowFailsAndExitsOne) {
  setenv(doctor::fault_variable, "pcie=4x8", 1);
  const Outcome o = doctor({}, "0");
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(says(o, "FAIL pcie link (GPU 0): the link trained at Gen4 x8 (15.8 GB/s) instead of Gen5 x16")) << o.out;
}

TEST_F(Doctor, AnInactiveNvlinkIsNamedOnItsGpu) {
  setenv(doctor::fault_variable, "nvlink-down=1", 1);
  const Outcome o = doctor();
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_TRUE(says(o, "FAIL nvlinks (GPU 1): 2 of this GPU's NVLinks are down")) << o.out;
  EXPECT_FALSE(says(o, "FAIL nvlinks (GPU 0)")) << o.out;
}

TEST_F(Doctor, APairWithoutPeerAccessWarnsAndStillExitsZero) {
  setenv(doctor::fault_variable, "no-peer=0-1", 1);
  const Outcome o = doctor();
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(says(o, "WARN peer access (GPU 0 -> 1): copies between these GPUs go through host memory")) << o.out;
  EXPECT_TRUE(says(o, "WARN peer access (GPU 1 -> 0)")) << o.out;
}

TEST_F(Doctor, AProcessOnAFarNumaNodeIsToldWhereToBind) {
  setenv(doctor::fault_variable, "far-numa=0", 1);
  const Outcome o = doctor({}, "0");
  EXPECT_TRUE(says(o, "WARN numa placement (GPU 0): GPU 0 is attached to NUMA node 1")) << o.out;
  EXPECT_TRUE(says(o, "do: numactl --cpunodebind=1 --membind=1")) << o.out;
}

TEST_F(Doctor, CpusFarFromAGpuAndPinnedBuffersOnAFarNodeAreNamed) {
  setenv(doctor::fault_variable, "far-cpus=0,far-pinned=0", 1);
  const Outcome o = doctor({}, "0");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(says(o, "WARN cpu affinity (GPU 0): this process may run only on CPUs far from GPU 0")) << o.out;
  EXPECT_TRUE(says(o, "WARN pinned memory node (GPU 0): pinned buffers land on NUMA node 1 and GPU 0 is on node 0"))
      << o.out;
  EXPECT_TRUE(says(o, " 2 WARN, 0 FAIL")) << o.out;
}

TEST_F(Doctor, AnotherProcessOnAGpuIsNamed) {
  setenv(doctor::fault_variable, "other-process=0", 1);
  const Outcome o = doctor({}, "0");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(says(o, "WARN other processes (GPU 0): 1 other process had work on GPU 0")) << o.out;
}

// One run for every condition the GPU's NVML state can provoke: each run of the pass takes seconds.
TEST_F(Doctor, EachNvmlStateConditionIsNamedWithItsCause) {
  setenv(doctor::fault_variable,
         "persistence-off=1,clocks=0:hw-thermal,clocks=0:power-cap,mig=0,exclusive=0,prohibited=1,pcie-traffic=1", 1);
  const Outcome o = doctor();
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(says(o, "WARN persistence mode (GPU 1): persistence mode off: the first CUDA call of each process pays "
                      "the driver's start-up"))
      << o.out;
  EXPECT_TRUE(says(o, "do: `sudo nvidia-smi -pm 1`")) << o.out;
  EXPECT_TRUE(says(o, "WARN clock events (GPU 0): the GPU slowed its clocks during the pass: SW power cap, HW thermal "
                      "slowdown\n"))
      << o.out;
  EXPECT_TRUE(says(o, "WARN mig mode (GPU 0): a MIG instance has a share of the copy engines and memory")) << o.out;
  EXPECT_TRUE(says(o, "WARN compute mode (GPU 0): exclusive process: one process at a time can use GPU 0")) << o.out;
  EXPECT_TRUE(says(o, "WARN compute mode (GPU 1): prohibited: no process can create a CUDA context on GPU 1")) << o.out;
  EXPECT_TRUE(says(o, "WARN pcie traffic (GPU 1): PCIe traffic that is not ferry's: 3.2 GB/s in, 0.4 GB/s out while "
                      "doctor was idle, above the 1.0 GB/s an idle GPU stays under"))
      << o.out;
  EXPECT_TRUE(says(o, " 6 WARN, 0 FAIL")) << "the conditions alone, and none on the GPU they do not name\n" << o.out;
}

TEST_F(Doctor, NcclAndCudaVariablesThatChangeThePathsAreNamed) {
  setenv("NCCL_P2P_DISABLE", "1", 1);
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
  setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);  // in order: nothing to say
  const Outcome o = doctor({}, "0");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(says(o, "NCCL_P2P_DISABLE=1")) << o.out;
  EXPECT_TRUE(says(o, "WARN environment (host): the hardware queues per device")) << o.out;
  EXPECT_FALSE(says(o, "CUDA_VISIBLE_DEVICES=0,1")) << o.out;
  setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
  EXPECT_TRUE(says(doctor({}, "0"), "CUDA_VISIBLE_DEVICES=1,0"));
}

TEST_F(Doctor, DataThatArrivedWrongIsAFailure) {
  setenv("FERRY_FAULT_CORRUPT_OUTPUT", "bandwidth", 1);
  const Outcome o = doctor({}, "0");
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_TRUE(says(o, "FAIL verification (host): data arrived wrong")) << o.out;
}

TEST_F(Doctor, AnUnknownConditionIsRefusedBeforeAnythingRuns) {
  setenv(doctor::fault_variable, "pcie=fast", 1);
  Outcome o = doctor();
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("wants pcie=GENxWIDTH"), std::string::npos) << o.err;
  setenv(doctor::fault_variable, "gremlins", 1);
  o = doctor();
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("unknown condition 'gremlins'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(
                "clocks=D:REASON, mig=D, exclusive=D, prohibited=D, pcie-traffic=D, slow-launch=D, slow-graph=D, "
                "nccl-slow=A-B or nccl-corrupt=A-B (and under mpirun slow-rank=R or corrupt-pair=R)"),
            std::string::npos)
      << o.err;
  setenv(doctor::fault_variable, "clocks=0:hot", 1);
  o = doctor();
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("wants clocks=D:REASON, REASON one of power-cap"), std::string::npos) << o.err;
}

TEST_F(Doctor, ABudgetTooShortIsAWarningAndAMalformedOneIsRefused) {
  const Outcome o = doctor({"--budget", "1ns"}, "0");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_TRUE(says(o, "WARN pass time (host)")) << o.out;
  EXPECT_EQ(doctor({"--budget", "soon"}).code, 2);
  const Outcome quick = doctor({"--quick"});
  EXPECT_EQ(quick.code, 2);
  EXPECT_NE(quick.err.find("--quick is for `ferry run`"), std::string::npos) << quick.err;
}

TEST_F(Doctor, HelpOffersNoQuickWhichDoctorRefuses) {
  const Outcome help = ferry({"doctor", "--help"});
  EXPECT_EQ(help.code, 0) << help.err;
  EXPECT_NE(help.out.find("--budget"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("--quick"), std::string::npos) << help.out;
  const Outcome quick = doctor({"--quick"});
  EXPECT_EQ(quick.code, 2);
  EXPECT_NE(quick.err.find("--quick is for `ferry run`"), std::string::npos) << quick.err;
}

TEST_F(Doctor, TheDryRunListsThePassAndMeasuresNothing) {
  const Outcome o = doctor({"--dry-run"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(says(o, "link (doctor's pass)")) << o.out;
  EXPECT_FALSE(says(o, "ferry doctor\n")) << o.out;
}

}  // namespace
}  // namespace ferry
