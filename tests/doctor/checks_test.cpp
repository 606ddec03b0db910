// doctor's judgments on machines described in numbers: a healthy H100-like GPU
// and pair, then each fault a user meets, and the verdict and cause it must get.
#include "doctor/facts.hpp"
#include "doctor/healthy_inputs.hpp"
#include "doctor/judge/diagnose.hpp"
#include "doctor/judge/gpu_state.hpp"
#include "doctor/judge/pass_time.hpp"
#include "doctor/test_findings.hpp"
#include "doctor/thresholds.hpp"

#include <gtest/gtest.h>

#include <algorithm>

// A namespace of its own: a unity build compiles it with the other doctor tests, whose helpers share its names.
namespace ferry::doctor::checks_test {
namespace {

constexpr double GB = 1e9;

using test_findings::find;
using test_findings::not_ok;
using test_inputs::healthy;

TEST(DoctorChecks, AHealthyMachineOfFourGpusHasNothingToReport) {
  const std::vector<Finding> findings = diagnose(healthy(4));
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{});
  EXPECT_FALSE(any_fail(findings));
  EXPECT_EQ(find(findings, "pinned h2d", "GPU 2").verdict, Verdict::ok);
  EXPECT_EQ(find(findings, "peer copy", "GPU 3 -> 1").verdict, Verdict::ok);
  EXPECT_EQ(find(findings, "device copy", "GPU 0").verdict, Verdict::ok);
  for (const char* check : {"persistence mode", "clock events", "mig mode", "compute mode", "pcie traffic"})
    EXPECT_EQ(find(findings, check, "GPU 1").verdict, Verdict::ok) << check;
}

TEST(DoctorChecks, ALinkTrainedAtGen4x8FailsAndExplainsTheSlowCopiesWithItsArithmetic) {
  Inputs in = healthy(1);
  in.machine.gpus[0].pcie = {4, 8, 5, 16, "nvml"};
  in.figures.devices[0].h2d_Bps = 13.9 * GB;
  in.figures.devices[0].d2h_Bps = 14.1 * GB;
  const std::vector<Finding> findings = diagnose(in);
  const Finding link = find(findings, "pcie link", "GPU 0");
  EXPECT_EQ(link.verdict, Verdict::fail);
  EXPECT_EQ(link.measured, "Gen4 x8");
  EXPECT_EQ(link.expected, "Gen5 x16");
  const Finding h2d = find(findings, "pinned h2d", "GPU 0");
  EXPECT_EQ(h2d.verdict, Verdict::fail);
  EXPECT_EQ(h2d.cause, "PCIe Gen4 x8 allows 15.8 GB/s; you measured 13.9 GB/s: the link, not the GPU");
}

TEST(DoctorChecks, SlowCopiesOnAFullLinkAreNamedWithoutBlamingTheLink) {
  Inputs in = healthy(1);
  in.figures.devices[0].d2h_Bps = 42 * GB;  // 67% of Gen5 x16
  const Finding d2h = find(diagnose(in), "pinned d2h", "GPU 0");
  EXPECT_EQ(d2h.verdict, Verdict::warn);
  EXPECT_NE(d2h.cause.find("full generation and width"), std::string::npos) << d2h.cause;
}

TEST(DoctorChecks, AnInactiveNvlinkFailsThatGpuAlone) {
  Inputs in = healthy(4);
  in.machine.gpus[2].nvlinks = 16;
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"nvlinks GPU 2"});
  EXPECT_NE(find(findings, "nvlinks", "GPU 2").cause.find("2 of this GPU's NVLinks are down"), std::string::npos);
}

TEST(DoctorChecks, APairThirtyPercentSlowIsNamedAgainstItsLikeAndAsAsymmetric) {
  Inputs in = healthy(4);
  for (model::PeerProfile& p : in.figures.peers)
    if (p.from == 0 && p.to == 1) p.copy_Bps *= 0.7;
  const std::vector<Finding> findings = diagnose(in);
  // 273 GB/s is also 61% of 18 x NVLink4: low against its links too.
  EXPECT_EQ(not_ok(findings), (std::vector<std::string>{"peer copy GPU 0 -> 1", "peer vs like pairs GPU 0 -> 1",
                                                        "peer asymmetry GPU 0 <-> 1"}));
  EXPECT_TRUE(any_fail(findings));
  EXPECT_EQ(find(findings, "peer vs like pairs", "GPU 0 -> 1").cause, "70% of pairs linked alike");
}

TEST(DoctorChecks, AGpuSlowerThanItsLikeIsNamed) {
  Inputs in = healthy(4);
  in.figures.devices[3].h2d_Bps = 40 * GB;  // 75% of the others, 63% of the link
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), (std::vector<std::string>{"pinned h2d GPU 3", "pinned vs like GPUs GPU 3"}));
  EXPECT_EQ(find(findings, "pinned vs like GPUs", "GPU 3").verdict, Verdict::fail);
}

TEST(DoctorChecks, APairWithoutPeerAccessIsAWarningThatSaysWhereItsCopiesGo) {
  Inputs in = healthy(2);
  in.machine.peers[0].direct_access = false;
  const Finding f = find(diagnose(in), "peer access", "GPU 0 -> 1");
  EXPECT_EQ(f.verdict, Verdict::warn);
  EXPECT_NE(f.cause.find("through host memory"), std::string::npos);
}

TEST(DoctorChecks, AProcessBoundToAFarNumaNodeIsToldTheNodeToBindTo) {
  Inputs in = healthy(2);
  in.placement.process_nodes = {0};
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"numa placement GPU 1"});
  EXPECT_EQ(find(findings, "numa placement", "GPU 1").action, "numactl --cpunodebind=1 --membind=1 ferry ...");
}

TEST(DoctorChecks, AProcessAllowedOnlyCpusFarFromAGpuIsToldWhichToRunOn) {
  Inputs in = healthy(2);
  in.placement.process_cpus.resize(32);  // node 0's CPUs alone, as `taskset -c 0-31` leaves them
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"cpu affinity GPU 1"});
  EXPECT_EQ(find(findings, "cpu affinity", "GPU 1").action,
            "taskset -c 32-63 ferry ... (or the launcher's binding, e.g. mpirun --bind-to)");
  EXPECT_EQ(find(findings, "cpu affinity", "GPU 0").measured, "32 of this process's 32 CPUs near it");
  in.machine.gpus[1].near_cpus.clear();  // NVML does not say
  EXPECT_EQ(find(diagnose(in), "cpu affinity", "GPU 1").verdict, Verdict::not_judged);
}

TEST(DoctorChecks, PinnedBuffersFarFromAGpuAreNamedOnlyForAProcessBoundToItsNode) {
  Inputs in = healthy(2);
  EXPECT_EQ(find(diagnose(in), "pinned memory node", "GPU 1").verdict, Verdict::not_judged);  // spans nodes 0, 1
  in.placement.process_nodes = {1};
  in.placement.pinned_node = 0;  // bound to node 1's CPUs, its memory policy elsewhere
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), (std::vector<std::string>{"numa placement GPU 0", "pinned memory node GPU 1"}));
  const Finding f = find(findings, "pinned memory node", "GPU 1");
  EXPECT_NE(f.cause.find("pinned buffers land on NUMA node 0 and GPU 1 is on node 1"), std::string::npos) << f.cause;
  EXPECT_EQ(find(findings, "pinned memory node", "GPU 0").verdict, Verdict::not_judged);  // numa placement's case
  in.placement.pinned_node = 1;
  EXPECT_EQ(find(diagnose(in), "pinned memory node", "GPU 1").verdict, Verdict::ok);
}

TEST(DoctorChecks, EachPathVariableSetIsAWarningNamingWhatItChanges) {
  Inputs in = healthy(1);
  in.environment = {{"NCCL_P2P_DISABLE", "1"}, {"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), (std::vector<std::string>{"environment host", "environment host"}));
  bool p2p = false, connections = false;
  for (const Finding& f : findings) {
    p2p |= f.measured == "NCCL_P2P_DISABLE=1" && f.cause.find("through host memory") != std::string::npos;
    connections |=
        f.measured == "CUDA_DEVICE_MAX_CONNECTIONS=1" && f.cause.find("wait for each other") != std::string::npos;
  }
  EXPECT_TRUE(p2p);
  EXPECT_TRUE(connections);
}

TEST(DoctorChecks, NoPathVariableSetIsOkAndEachOneSetAloneWarnsWithWhatItChanges) {
  const Finding none = find(diagnose(healthy(1)), "environment", "host");
  EXPECT_EQ(none.verdict, Verdict::ok);
  EXPECT_EQ(none.measured, "none set");
  for (const auto& [name, effect] : path_variables()) {
    Inputs in = healthy(1);
    in.environment = {{name, "1"}};
    const std::vector<Finding> findings = diagnose(in);
    EXPECT_EQ(not_ok(findings), std::vector<std::string>{"environment host"}) << name;
    const Finding f = find(findings, "environment", "host");
    EXPECT_EQ(f.verdict, Verdict::warn) << name;
    EXPECT_EQ(f.measured, name + "=1");
    // A reordered CUDA_VISIBLE_DEVICES is worth a word for what it does to device numbers, not to paths.
    if (name != "CUDA_VISIBLE_DEVICES") EXPECT_EQ(f.cause, effect) << name;
  }
}

TEST(DoctorChecks, SlowCopiesBothWaysWithOneHardwareQueueAreBlamedOnTheVariable) {
  Inputs in = healthy(1);
  in.environment = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  in.figures.devices[0].bidirectional_Bps = 62.7 * GB;  // as on an H200 with the variable set
  const Finding f = find(diagnose(in), "pinned both ways", "GPU 0");
  EXPECT_EQ(f.verdict, Verdict::warn);
  EXPECT_EQ(f.cause.rfind("CUDA_DEVICE_MAX_CONNECTIONS=1 is set", 0), 0u) << f.cause;
}

TEST(DoctorChecks, AnotherProcessOnTheGpuIsNamedAndBlamedForItsLowFigures) {
  Inputs in = healthy(1);
  in.machine.gpus[0].other_processes = 1;
  in.machine.gpus[0].other_process_ids = {31337};
  in.figures.devices[0].bidirectional_Bps = 74.6 * GB;  // as beside another process's copies on an H200
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), (std::vector<std::string>{"other processes GPU 0", "pinned both ways GPU 0"}));
  EXPECT_NE(find(findings, "other processes", "GPU 0").cause.find("NVML ids 31337"), std::string::npos);
  EXPECT_EQ(find(findings, "pinned both ways", "GPU 0").cause.rfind("another process had work on GPU 0", 0), 0u);
}

TEST(DoctorChecks, SlowMemoryFailsTheDeviceCopy) {
  Inputs in = healthy(1);
  in.figures.devices[0].device_copy_Bps = 700 * GB;  // 42% of half of 3352 GB/s
  EXPECT_EQ(find(diagnose(in), "device copy", "GPU 0").verdict, Verdict::fail);
}

TEST(DoctorChecks, DataThatArrivedWrongFailsWhateverTheSpeed) {
  Inputs in = healthy(1);
  in.verification_passed = false;
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(find(findings, "verification", "host").verdict, Verdict::fail);
  EXPECT_TRUE(any_fail(findings));
}

TEST(DoctorChecks, TheEmulatorsTimingsAreNotJudgedButItsFactsAre) {
  Inputs in = healthy(2);
  in.figures.gpu_timings = false;
  in.figures.devices[0].h2d_Bps = 1 * GB;  // a CPU's memcpy says nothing about a link
  in.machine.peers[1].direct_access = false;
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"peer access GPU 1 -> 0"});
  EXPECT_EQ(find(findings, "figures", "host").verdict, Verdict::not_judged);
}

TEST(DoctorChecks, PersistenceModeOffWarnsThatEachProcessPaysTheDriversStartUp) {
  Inputs in = healthy(2);
  in.machine.gpus[1].persistence_mode = false;
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"persistence mode GPU 1"});
  const Finding f = find(findings, "persistence mode", "GPU 1");
  EXPECT_EQ(f.verdict, Verdict::warn);
  EXPECT_EQ(f.measured, "off");
  EXPECT_EQ(f.cause.rfind("persistence mode off: the first CUDA call of each process pays the driver's start-up", 0),
            0u)
      << f.cause;
  EXPECT_NE(f.action.find("nvidia-smi -pm 1"), std::string::npos) << f.action;
}

TEST(DoctorChecks, ClocksHeldForHeatOrPowerAreNamedAndIdleIsNoFault) {
  Inputs in = healthy(2);
  in.machine.gpus[0].clock_events = clock_event::gpu_idle | clock_event::applications_clocks;
  in.machine.gpus[1].clock_events = clock_event::hw_thermal | clock_event::sw_power_cap | clock_event::gpu_idle;
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"clock events GPU 1"});
  EXPECT_EQ(find(findings, "clock events", "GPU 0").measured, "idle, applications clocks");
  const Finding f = find(findings, "clock events", "GPU 1");
  EXPECT_EQ(f.verdict, Verdict::warn);
  EXPECT_EQ(f.measured, "SW power cap, HW thermal slowdown, idle");
  EXPECT_EQ(f.cause, "the GPU slowed its clocks during the pass: SW power cap, HW thermal slowdown");
  EXPECT_NE(f.action.find("nvidia-smi -q -d PERFORMANCE"), std::string::npos) << f.action;
}

TEST(DoctorChecks, EachClockSlowdownIsNamedAsNvidiaSmiNamesIt) {
  EXPECT_EQ(clock_slowdowns(clock_event::sw_thermal), "SW thermal slowdown");
  EXPECT_EQ(clock_slowdowns(clock_event::hw_slowdown | clock_event::hw_power_brake), "HW slowdown, HW power brake");
  EXPECT_EQ(clock_slowdowns(clock_event::gpu_idle | clock_event::sync_boost), "");
}

TEST(DoctorChecks, ASlowDeviceCopyOnAGpuThatSlowedItsClocksIsBlamedOnTheClocks) {
  Inputs in = healthy(1);
  in.machine.gpus[0].clock_events = clock_event::hw_slowdown | clock_event::hw_power_brake;
  in.figures.devices[0].device_copy_Bps = 700 * GB;
  const Finding f = find(diagnose(in), "device copy", "GPU 0");
  EXPECT_EQ(f.verdict, Verdict::fail);
  EXPECT_EQ(f.cause, "the GPU slowed its clocks during the pass (HW slowdown, HW power brake): see clock events");
}

TEST(DoctorChecks, AGpuInMigModeWarnsThatItsFiguresAreTheInstances) {
  Inputs in = healthy(2);
  in.machine.gpus[0].mig_mode = true;
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"mig mode GPU 0"});
  EXPECT_EQ(find(findings, "mig mode", "GPU 0").cause,
            "a MIG instance has a share of the copy engines and memory: figures are the instance's, not the GPU's");
}

TEST(DoctorChecks, AnExclusiveOrProhibitedComputeModeWarnsWhoCannotUseTheGpu) {
  Inputs in = healthy(3);
  in.machine.gpus[1].compute_mode = ComputeMode::exclusive_process;
  in.machine.gpus[2].compute_mode = ComputeMode::prohibited;
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), (std::vector<std::string>{"compute mode GPU 1", "compute mode GPU 2"}));
  const Finding exclusive = find(findings, "compute mode", "GPU 1");
  EXPECT_EQ(exclusive.measured, "exclusive process");
  EXPECT_EQ(exclusive.cause.rfind("exclusive process: one process at a time can use GPU 1", 0), 0u) << exclusive.cause;
  EXPECT_EQ(find(findings, "compute mode", "GPU 2").cause, "prohibited: no process can create a CUDA context on GPU 2");
  EXPECT_NE(exclusive.action.find("nvidia-smi -i 1 -c DEFAULT"), std::string::npos);
}

TEST(DoctorChecks, PcieTrafficWhileDoctorIdledWarnsWithItsShareOfTheLink) {
  Inputs in = healthy(2);
  in.idle_pcie_traffic[1].second = {.rx_Bps = 3.2 * GB, .tx_Bps = 0.4 * GB};
  in.idle_pcie_traffic[0].second = {.rx_Bps = 0.9 * GB, .tx_Bps = 0.9 * GB};  // under 1 GB/s: not called out
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"pcie traffic GPU 1"});
  const Finding f = find(findings, "pcie traffic", "GPU 1");
  EXPECT_EQ(f.verdict, Verdict::warn);
  EXPECT_EQ(f.measured, "3.2 GB/s in, 400.0 MB/s out");
  EXPECT_EQ(f.cause.rfind("PCIe traffic that is not ferry's: 3.2 GB/s in, 0.4 GB/s out while doctor was idle, above "
                          "the 1.0 GB/s an idle GPU stays under (5% of PCIe Gen5 x16's 63.0 GB/s each way)",
                          0),
            0u)
      << f.cause;
  EXPECT_EQ(f.value, 3.2 * GB);
  EXPECT_EQ(f.model, idle_pcie_traffic_Bps);
}

TEST(DoctorChecks, GpuStateNvmlDoesNotGiveIsNotJudged) {
  Inputs in = healthy(1);
  in.machine.gpus[0] = GpuFacts{.index = 0, .name = "NVIDIA H100 80GB HBM3", .memory_bandwidth_Bps = 3352 * GB};
  in.machine.gpus[0].pcie = {5, 16, 5, 16, "sysfs"};
  in.idle_pcie_traffic.clear();
  const std::vector<Finding> findings = diagnose(in);
  for (const char* check :
       {"other processes", "persistence mode", "clock events", "mig mode", "compute mode", "pcie traffic"}) {
    const Finding f = find(findings, check, "GPU 0");
    EXPECT_EQ(f.verdict, Verdict::not_judged) << check;
    EXPECT_EQ(f.basis, "NVML does not say") << check;
  }
}

TEST(DoctorChecks, APeerCopyBetweenGpusWhoseLinksAreUnknownIsNotJudgedAgainstPcie) {
  Inputs in = healthy(2);
  for (PeerFacts& p : in.machine.peers) p = {.from = p.from, .to = p.to, .direct_access = true};  // no NVML
  const std::vector<Finding> findings = diagnose(in);
  const Finding unknown = find(findings, "peer copy", "GPU 0 -> 1");
  EXPECT_EQ(unknown.verdict, Verdict::not_judged);
  EXPECT_EQ(unknown.measured, "390.0 GB/s");
  EXPECT_EQ(unknown.basis.rfind("the NVLinks between the pair are unknown", 0), 0u) << unknown.basis;
  // NVML looked and found none: a PCIe pair, held against its link.
  for (PeerFacts& p : in.machine.peers) p.nvlink_source = "nvml";
  for (model::PeerProfile& p : in.figures.peers) p.copy_Bps = 20 * GB;
  const Finding pcie = find(diagnose(in), "peer copy", "GPU 0 -> 1");
  EXPECT_EQ(pcie.verdict, Verdict::fail);
  EXPECT_EQ(pcie.basis, "PCIe Gen5 x16");
}

TEST(DoctorChecks, APassWithinItsBudgetIsOkAndOnePastItWarns) {
  const Finding within = judge_pass_time(8.7, 60);  // the pass on 2 x H200
  EXPECT_EQ(within.verdict, Verdict::ok);
  EXPECT_EQ(within.measured, "8.7 s");
  EXPECT_EQ(within.expected, "<= 60 s");
  const Finding past = judge_pass_time(61, 60);
  EXPECT_EQ(past.verdict, Verdict::warn);
  EXPECT_NE(past.action.find("raise --budget"), std::string::npos) << past.action;
}

}  // namespace
}  // namespace ferry::doctor::checks_test
