#include "doctor/fleet_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/stats.hpp"
#include "core/table.hpp"
#include "core/units.hpp"
#include "doctor/report.hpp"

namespace ferry::doctor {
namespace {

std::string count_of(const std::vector<Finding>& findings, Verdict v) {
  return std::to_string(
      std::count_if(findings.begin(), findings.end(), [v](const Finding& f) { return f.verdict == v; }));
}

// One transport's pairs: each one's median time, its rate for `bytes_per_timing`, and whether it arrived intact.
std::string pairs_table(const std::vector<PairTiming>& pairs, double bytes_per_timing) {
  TextTable table({"pair", "hosts", "median", "rate", "arrived"});
  for (const PairTiming& p : pairs) {
    const double median = p.seconds.empty() ? 0 : summarize(p.seconds).median;
    table.add({fmt::format("rank {} -> {}", p.from, p.to), fmt::format("{} -> {}", p.from_host, p.to_host),
               median > 0 ? fmt::format("{:.0f} us", to_us(median)) : "-",
               median > 0 ? rate_text(bytes_per_timing / median) : "-", p.intact ? "intact" : "WRONG"});
  }
  return table.render();
}

}  // namespace

std::vector<Finding> all_findings(const FleetInputs& in, const std::vector<Finding>& fleet) {
  std::vector<Finding> all = fleet;
  for (const RankReport& r : in.ranks)
    for (Finding f : r.findings) {
      f.subject = fmt::format("{} (rank {}): {}", r.host, r.rank, f.subject);
      all.push_back(std::move(f));
    }
  return all;
}

std::string render_fleet(const FleetInputs& in, const std::vector<Finding>& fleet) {
  std::vector<std::string> hosts;
  for (const RankReport& r : in.ranks)
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  std::string text = fmt::format("\nferry doctor: {} ranks on {} host{}\n", in.ranks.size(), hosts.size(),
                                 hosts.size() == 1 ? "" : "s");
  TextTable ranks(
      {"host", "GPU", "rank", "model", "pinned h2d", "pinned d2h", "both ways", "device copy", "OK", "WARN", "FAIL"});
  for (const std::string& host : hosts)
    for (const RankReport& r : in.ranks)
      if (r.host == host)
        ranks.add({r.host, std::to_string(r.device), std::to_string(r.rank), r.gpu, rate_text(r.h2d_Bps),
                   rate_text(r.d2h_Bps), rate_text(r.both_ways_Bps), rate_text(r.device_copy_Bps),
                   count_of(r.findings, Verdict::ok), count_of(r.findings, Verdict::warn),
                   count_of(r.findings, Verdict::fail)});
  text += ranks.render();
  if (!in.pairs.empty()) {
    text += fmt::format("\n{} through pinned host memory and MPI, one pair at a time:\n{}", format_bytes(in.pair_bytes),
                        pairs_table(in.pairs, static_cast<double>(in.pair_bytes)));
    if (!in.nccl_skipped.empty()) text += "NCCL's pairs: not run: " + in.nccl_skipped + "\n";
    else if (!in.nccl_pairs.empty())
      text += fmt::format("\n{} messages of {} through NCCL (ncclSend/Recv), one pair at a time:\n{}", in.nccl_messages,
                          format_bytes(in.pair_bytes),
                          pairs_table(in.nccl_pairs, static_cast<double>(in.pair_bytes) * in.nccl_messages));
  }
  // The fleet's rows, and each rank's own that are not OK: the rest are in the results.
  std::vector<Finding> shown = fleet;
  for (const Finding& f : all_findings(in, {}))
    if (f.verdict == Verdict::warn || f.verdict == Verdict::fail) shown.push_back(f);
  text += render_findings(shown);
  const std::vector<Finding> all = all_findings(in, fleet);
  text += fmt::format("every rank's checks and the fleet's: {} OK, {} WARN, {} FAIL, {} not judged\n",
                      count_of(all, Verdict::ok), count_of(all, Verdict::warn), count_of(all, Verdict::fail),
                      count_of(all, Verdict::not_judged));
  return text;
}

}  // namespace ferry::doctor
