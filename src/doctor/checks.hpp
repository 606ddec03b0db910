#pragma once
// `ferry doctor`'s judgments: the machine's facts and link's figures in, one
// finding per check and subject out, each with what it was held against and,
// when it is not OK, the likely cause and what to do. Nothing here measures
// or reads the machine: doctor/pass.cpp gathers the inputs.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/machine.hpp"
#include "doctor/thresholds.hpp"
#include "model/profile.hpp"

namespace ferry::doctor {

enum class Verdict { ok, warn, fail, not_judged };
std::string_view verdict_name(Verdict verdict);  // "OK", "WARN", "FAIL", "-"

struct Finding {
  std::string check{};    // "pinned h2d", "pcie link", ...
  std::string subject{};  // "GPU 0", "GPU 0 -> 1", "host"
  Verdict verdict = Verdict::not_judged;
  std::string measured{};         // "53.5 GB/s", "Gen4 x8"
  std::string expected{};         // ">= 75% of 63.0 GB/s"
  std::string basis{};            // what the expectation stands on: "PCIe Gen5 x16 (nvml, read during a copy)"
  std::string cause{};            // why, with the arithmetic; empty when OK
  std::string action{};           // what to do; empty when OK
  std::optional<double> value{};  // the figure in base units (B/s or s) where the check is one
  std::optional<double> model{};  // what it was held against, same units
};

std::string rate_text(double Bps);  // "53.5 GB/s"

// A rate held against a share of what it should reach.
struct ShareCheck {
  std::string check;
  std::string subject;
  double measured_Bps = 0;
  double model_Bps = 0;
  double share = 0;               // OK at or above this share of the model
  Verdict below = Verdict::warn;  // the verdict under it
  double fail_share = 0;          // FAIL under this share too (a Threshold's fail_below); 0: no such step
  std::string basis{};
  std::string model_name{};  // "pinned": expected reads ">= 8% of pinned (20.0 GB/s)"; else ">= 85% of 54.7 GB/s"
};
// The finding "below share X": value, model, measured, expected, basis and
// verdict filled; the cause and action are the caller's.
Finding judge_share(const ShareCheck& check);

// Where the process may run and where each GPU is attached.
struct Placement {
  std::vector<int> process_nodes{};                 // NUMA nodes of the CPUs this process may run on; empty: unknown
  std::vector<std::pair<int, int>> device_nodes{};  // (device, NUMA node); a node of -1 or a missing device: unknown
  std::vector<int> process_cpus{};                  // the CPUs sched_getaffinity allows; empty: unknown
  int pinned_node = -1;                             // the node of a pinned buffer doctor allocated; -1: unknown
};

struct Inputs {
  Machine machine{};  // the GPUs' PCIe links as read while a copy ran
  std::vector<int> devices{};
  model::MachineProfile figures{};  // link's figures from this pass
  bool verification_passed = true;
  int checked_rows = 0;
  std::vector<std::pair<std::string, std::string>> environment{};  // variables that change data paths, as set
  Placement placement{};
  // (device, traffic): NVML's PCIe counters read after the pass, with nothing of
  // doctor's moving; a missing device: unknown.
  std::vector<std::pair<int, PcieTraffic>> idle_pcie_traffic{};
};

// The variables doctor reports when set, each with what it changes.
const std::vector<std::pair<std::string, std::string>>& path_variables();

std::vector<Finding> diagnose(const Inputs& inputs);
bool any_fail(const std::vector<Finding>& findings);

}  // namespace ferry::doctor
