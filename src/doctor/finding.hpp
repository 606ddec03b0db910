#pragma once
// What each of `ferry doctor`'s judgments gives: one finding per check and
// subject, with what it was held against and, when it is not OK, the likely
// cause and what to do; and the shapes of finding the judgments share.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"  // rate_text

namespace ferry::doctor {

enum class Verdict { ok, warn, fail, not_judged };
std::string_view verdict_name(Verdict verdict);  // "OK", "WARN", "FAIL", "-"

// What a finding's figure (value, model) is counted in.
enum class Unit { none, bytes_per_second, seconds };
std::string_view unit_name(Unit unit);  // "", "B/s", "s"

// Which way a figure moves when the node got worse, for --baseline. not_compared where another finding holds the
// same figure (a comparison with like GPUs, an asymmetry), or where its level says nothing of the node's health
// (traffic while idle, the pass's own time, a fleet's pairs).
enum class Worse { not_compared, lower, higher };

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
  Unit unit = Unit::none;         // of value and model; none when there is no value
  Worse worse = Worse::not_compared;
};

bool any_fail(const std::vector<Finding>& findings);

std::string gpu_subject(int device);  // "GPU 0"

// The GPUs a subject names: "GPU 0" is {0}, "GPU 0 -> 1" {0, 1, "->"}, "GPU 0 <-> 1" {0, 1, "<->"}; nullopt for any
// other subject ("host", a fleet's ranks).
struct SubjectGpus {
  int gpu = 0;
  std::optional<int> peer{};
  std::string between{};  // "->" or "<->" when there is a peer
};
std::optional<SubjectGpus> subject_gpus(const std::string& subject);

// A check that could not be judged, and why.
Finding not_judged(std::string check, std::string subject, std::string why);

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

}  // namespace ferry::doctor
