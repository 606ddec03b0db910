#include "doctor/judge/nccl.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/units.hpp"
#include "doctor/thresholds.hpp"

namespace ferry::doctor {
namespace {

constexpr std::string_view nccl_check = "nccl vs p2p-ce at 2 MiB";

std::string nccl_pair_subject(const NcclPair& p) { return fmt::format("GPU {} <-> {}", p.first, p.second); }

// The NCCL variables set, as NAME=VALUE, each with what it does to NCCL's path.
std::vector<std::pair<std::string, std::string>> nccl_variables(
    const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<std::pair<std::string, std::string>> set;
  for (const auto& [name, value] : environment) {
    if (name.rfind("NCCL_", 0) != 0) continue;
    std::string effect;
    for (const auto& [known, what] : path_variables())
      if (known == name) effect = what;
    if (name == "NCCL_P2P_DISABLE")
      effect = value == "0" ? "peer access allowed"
                            : "NCCL then goes through host memory: each message is copied into host memory and "
                              "out again, instead of over NVLink or PCIe peer access";
    set.emplace_back(name + "=" + value, effect);
  }
  return set;
}

Finding judge_pair(const NcclPair& p, const std::vector<std::pair<std::string, std::string>>& environment) {
  Finding f{.check = std::string(nccl_check), .subject = nccl_pair_subject(p)};
  const std::string devices = fmt::format("{},{}", p.first, p.second);
  const std::uint64_t wrong = p.p2p_ce.wrong_words + p.nccl.wrong_words;
  if (wrong > 0) {
    f.verdict = Verdict::fail;
    f.measured = fmt::format("{} wrong word{}", wrong, wrong == 1 ? "" : "s");
    f.expected = "every message intact";
    f.basis = p.how;
    std::vector<std::string> where;
    for (const auto& [name, t] : {std::pair{"p2p-ce", &p.p2p_ce}, std::pair{"nccl", &p.nccl}})
      if (t->wrong_words > 0) where.push_back(fmt::format("{} {}", name, t->wrong_words));
    f.cause = fmt::format(
        "messages between GPU {} and {} arrived other than their sender wrote them (wrong words: {}); each is "
        "checked word for word on arrival",
        p.first, p.second, join(where, ", ", [](const std::string& s) { return s; }));
    f.action = fmt::format("run `ferry run beff --devices {} --transport p2p-ce,nccl` to see which sizes arrive "
                           "wrong, and look for memory errors (`nvidia-smi -q -d ECC,ROW_REMAPPER`) and Xid errors "
                           "(`dmesg | grep -i xid`)",
                           devices);
    return f;
  }
  for (const auto& [name, t] : {std::pair{"nccl", &p.nccl}, std::pair{"p2p-ce", &p.p2p_ce}})
    if (!t->failed.empty()) {
      f.verdict = Verdict::warn;
      f.measured = "failed";
      f.expected = "both transports run";
      f.basis = p.how;
      f.cause = fmt::format("{} failed on the pair: {}", name, t->failed);
      f.action = fmt::format("run `NCCL_DEBUG=WARN ferry run beff --devices {} --transport {}` for the error in full",
                             devices, name);
      return f;
    }
  std::vector<std::string> skipped;
  for (const auto& [name, t] : {std::pair{"p2p-ce", &p.p2p_ce}, std::pair{"nccl", &p.nccl}})
    if (!t->skipped.empty()) skipped.push_back(fmt::format("{} did not run: {}", name, t->skipped));
  if (!skipped.empty()) {
    f.basis = join(skipped, "; ", [](const std::string& s) { return s; });
    return f;
  }
  if (!p.gpu_timings) {
    f.basis = "the emulator's timings are CPU timings: doctor judges its facts and checks, not its speed (every "
              "message arrived intact)";
    return f;
  }

  const auto in_force = nccl_variables(environment);
  const std::string named = in_force.empty() ? "none set" : join(in_force, ", ", [](const auto& v) { return v.first; });
  const double share = p.nccl.rate_Bps / p.p2p_ce.rate_Bps;
  f = judge_share({.check = f.check,
                   .subject = f.subject,
                   .measured_Bps = p.nccl.rate_Bps,
                   .model_Bps = p.p2p_ce.rate_Bps,
                   .share = nccl_vs_p2p_ce,
                   .below = Verdict::warn,
                   .basis = fmt::format("p2p-ce on the same pair, {}; NCCL variables: {}", p.how, named)});
  f.measured = fmt::format("{} ({:.2f}x)", rate_text(p.nccl.rate_Bps), share);
  f.worse = Worse::lower;
  if (f.verdict == Verdict::ok) return f;
  f.cause = fmt::format("nccl moved the ring's messages at {}, p2p-ce at {} on the same pair: {:.1f} / {:.1f} = "
                        "{:.2f}x, below {:.2f}x (a healthy 2 x H200 gave 0.60x); ",
                        rate_text(p.nccl.rate_Bps), rate_text(p.p2p_ce.rate_Bps), to_GBps(p.nccl.rate_Bps),
                        to_GBps(p.p2p_ce.rate_Bps), share, nccl_vs_p2p_ce);
  if (in_force.empty()) {
    f.cause += "no NCCL variable that changes its path is set in the environment (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, "
               "NCCL_SHM_DISABLE, NCCL_PROTO, NCCL_ALGO): NCCL chose a slower path itself, or one came from "
               "/etc/nccl.conf or ~/.nccl.conf";
    f.action = fmt::format("run `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P ferry run beff --devices {} --transport "
                           "nccl` and read which path NCCL connects through (P2P/IPC, P2P/CUMEM or SHM); `nvidia-smi "
                           "topo -m` shows how the GPUs are joined",
                           devices);
  } else {
    f.cause += "NCCL variables in force: " +
               join(in_force, "; ", [](const auto& v) { return v.first + (v.second.empty() ? "" : ": " + v.second); });
    f.action = fmt::format("unset {} unless this run is meant to measure its effect, and run doctor again; "
                           "NCCL_DEBUG=INFO shows the path NCCL takes (P2P/IPC, P2P/CUMEM or SHM)",
                           join(in_force, ", ", [](const auto& v) { return v.first.substr(0, v.first.find('=')); }));
  }
  return f;
}

}  // namespace

std::vector<Finding> judge_nccl(const std::vector<NcclPair>& pairs,
                                const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<Finding> out;
  std::vector<std::string> left_out;
  for (const NcclPair& p : pairs) {
    if (p.left_out) left_out.push_back(nccl_pair_subject(p));
    else out.push_back(judge_pair(p, environment));
  }
  if (!left_out.empty())
    out.push_back({.check = std::string(nccl_check),
                   .subject = fmt::format("{} more pairs", left_out.size()),
                   .verdict = Verdict::not_judged,
                   .basis = fmt::format("doctor measures the first {} pairs of {}, to keep its pass short; not "
                                        "measured: {} (`ferry run beff --devices A,B --transport p2p-ce,nccl` "
                                        "measures one)",
                                        pairs.size() - left_out.size(), pairs.size(),
                                        join(left_out, ", ", [](const std::string& s) { return s; }))});
  return out;
}

}  // namespace ferry::doctor
