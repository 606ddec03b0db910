#include "doctor/judge/peer_rates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/stats.hpp"
#include "doctor/thresholds.hpp"
#include "model/link_model.hpp"

namespace ferry::doctor {

void judge_peer_rates(const Inputs& in, std::vector<Finding>& out) {
  std::map<int, std::vector<double>> by_links;  // one-way peer copies by NVLinks between the pair
  auto links_of = [&](int from, int to) {
    for (const PeerFacts& f : in.machine.peers)
      if (f.from == from && f.to == to) return f.nvlinks;
    return 0;
  };
  // Without NVML, 0 NVLinks is "unknown": held against PCIe, an NVLink pair would pass at any speed.
  auto links_known = [&](int from, int to) {
    for (const PeerFacts& f : in.machine.peers)
      if (f.from == from && f.to == to) return !f.nvlink_source.empty();
    return false;
  };
  for (const model::PeerProfile& p : in.figures.peers)
    if (p.copy_Bps > 0) by_links[links_of(p.from, p.to)].push_back(p.copy_Bps);
  for (const model::PeerProfile& p : in.figures.peers) {
    if (p.copy_Bps <= 0) continue;
    const std::string who = fmt::format("GPU {} -> {}", p.from, p.to);
    const model::RatedLink link = model::peer_link(in.machine, p.from, p.to);
    if (!links_known(p.from, p.to)) {
      Finding f = not_judged("peer copy", who,
                             "the NVLinks between the pair are unknown (no NVML in this build or on this machine): "
                             "against PCIe an NVLink pair would pass at any speed");
      f.measured = rate_text(p.copy_Bps);
      out.push_back(std::move(f));
    } else if (link.Bps > 0) {
      Finding f = judge_share({.check = "peer copy",
                               .subject = who,
                               .measured_Bps = p.copy_Bps,
                               .model_Bps = link.Bps,
                               .share = peer_vs_link.warn_below,
                               .fail_share = peer_vs_link.fail_below,
                               .basis = link.basis});
      f.worse = Worse::lower;
      if (f.verdict != Verdict::ok) {
        f.cause = p.direct_access ? "the pair's copies run below its links: links down or shared with other traffic"
                                  : "no peer access: the copy is staged through host memory";
        f.action = "see the nvlinks and peer access rows";
      }
      out.push_back(std::move(f));
    }
    const std::vector<double>& like = by_links[links_of(p.from, p.to)];
    if (like.size() >= fewest_like) {
      const double usual = summarize(like).median;
      Finding f = judge_share(
          {.check = "peer vs like pairs",
           .subject = who,
           .measured_Bps = p.copy_Bps,
           .model_Bps = usual,
           .share = like_median_share,
           .below = Verdict::fail,
           .basis = links_known(p.from, p.to)
                        ? fmt::format("the median of the {} pairs with {} NVLinks", like.size(), links_of(p.from, p.to))
                        : fmt::format("the median of the {} pairs whose NVLinks are unknown", like.size())});
      if (f.verdict == Verdict::fail) {
        f.cause = fmt::format("{:.0f}% of pairs linked alike", 100 * p.copy_Bps / usual);
        f.action = "`nvidia-smi nvlink --status` on both GPUs; run `ferry run link --devices` on the pair alone";
      }
      out.push_back(std::move(f));
    }
    for (const model::PeerProfile& back : in.figures.peers) {
      if (back.from != p.to || back.to != p.from || back.copy_Bps <= 0 || p.from > p.to) continue;
      const double low = std::min(p.copy_Bps, back.copy_Bps), high = std::max(p.copy_Bps, back.copy_Bps);
      Finding f{.check = "peer asymmetry",
                .subject = fmt::format("GPU {} <-> {}", p.from, p.to),
                .value = low,
                .model = high,
                .unit = Unit::bytes_per_second};
      f.measured = fmt::format("{} and {}", rate_text(p.copy_Bps), rate_text(back.copy_Bps));
      f.expected = fmt::format("within {:.0f}% of each other", 100 * (1 - asymmetry_share));
      f.basis = "the two directions of one pair";
      f.verdict = low < asymmetry_share * high ? Verdict::warn : Verdict::ok;
      if (f.verdict == Verdict::warn) {
        f.cause = fmt::format("one direction reaches {:.0f}% of the other", 100 * low / high);
        f.action = "a link degraded in one direction, or traffic from another process one way";
      }
      out.push_back(std::move(f));
    }
  }
}

}  // namespace ferry::doctor
