#include "doctor/judge/gpu_rates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/stats.hpp"
#include "core/units.hpp"
#include "doctor/judge/gpu_state.hpp"
#include "doctor/thresholds.hpp"
#include "model/link_model.hpp"

namespace ferry::doctor {
namespace {

// The cause of a low figure when another process was on the GPU; empty when none was.
std::string shared_cause(const Inputs& in, int device) {
  if (!shared_with_others(in.machine, device)) return "";
  return fmt::format("another process had work on GPU {} while doctor measured (see other processes): it shares the "
                     "link",
                     device);
}

// The GPU's rates against its PCIe link and memory, when the timings are a GPU's.
void device_figures(const Inputs& in, const model::DeviceProfile& p, std::vector<Finding>& out) {
  const std::string who = gpu_subject(p.device);
  const GpuFacts* g = gpu_facts(in.machine, p.device);
  const PcieLink link = g ? g->pcie : PcieLink{};
  const double best = model::pcie_Bps(link.max_generation, link.max_width);
  const double now = model::pcie_Bps(link.generation, link.width);
  const std::string basis = best > 0 ? model::pcie_name(link.max_generation, link.max_width) : "";
  for (const auto& [check, value] : {std::pair{"pinned h2d", p.h2d_Bps}, std::pair{"pinned d2h", p.d2h_Bps}}) {
    if (best <= 0 || value <= 0) {
      out.push_back(not_judged(check, who, "no PCIe generation and width to hold it against"));
      continue;
    }
    Finding f = judge_share({.check = check,
                             .subject = who,
                             .measured_Bps = value,
                             .model_Bps = best,
                             .share = pinned_vs_pcie.warn_below,
                             .fail_share = pinned_vs_pcie.fail_below,
                             .basis = basis});
    f.worse = Worse::lower;
    if (f.verdict != Verdict::ok) {
      if (const std::string shared = shared_cause(in, p.device); !shared.empty()) f.cause = shared;
      else if (now > 0 && now < best)
        f.cause = fmt::format("{} allows {}; you measured {}: the link, not the GPU",
                              model::pcie_name(link.generation, link.width), rate_text(now), rate_text(value));
      else
        f.cause = fmt::format("{:.0f}% of the link's {} while the link ran at its full generation and width: "
                              "something else shares it, or the host side is slow (NUMA, IOMMU)",
                              100 * value / best, rate_text(best));
      f.action = "see the pcie link, numa placement and environment rows; run again with nothing else on the GPU";
    }
    out.push_back(std::move(f));
  }
  if (best > 0 && p.bidirectional_Bps > 0) {
    Finding f = judge_share({.check = "pinned both ways",
                             .subject = who,
                             .measured_Bps = p.bidirectional_Bps,
                             .model_Bps = 2 * best,
                             .share = both_ways_vs_pcie.warn_below,
                             .fail_share = both_ways_vs_pcie.fail_below,
                             .basis = basis + ", both directions"});
    f.worse = Worse::lower;
    if (f.verdict != Verdict::ok) {
      const auto queues = std::find_if(in.environment.begin(), in.environment.end(),
                                       [](const auto& v) { return v.first == "CUDA_DEVICE_MAX_CONNECTIONS"; });
      if (const std::string shared = shared_cause(in, p.device); !shared.empty()) {
        f.cause = shared;
        f.action = "measure again when the GPU is yours alone";
      } else if (queues != in.environment.end()) {
        f.cause = fmt::format("CUDA_DEVICE_MAX_CONNECTIONS={} is set: with few hardware queues the copy each way can "
                              "wait for the other ({} is {:.0f}% of one direction's {})",
                              queues->second, rate_text(p.bidirectional_Bps), 100 * p.bidirectional_Bps / best,
                              rate_text(best));
        f.action = "unset CUDA_DEVICE_MAX_CONNECTIONS, or raise it to at least the streams that copy at once";
      } else {
        f.cause = "copies each way at once share less of the link than a healthy machine's: a host bridge or root "
                  "port that serialises the two directions";
        f.action = "compare with another machine of this model; `ferry run link --memory pinned` gives the sweep";
      }
    }
    out.push_back(std::move(f));
  }
  for (const auto& [check, pageable, pinned] : {std::tuple{"pageable h2d", p.pageable_h2d_Bps, p.h2d_Bps},
                                                std::tuple{"pageable d2h", p.pageable_d2h_Bps, p.d2h_Bps}}) {
    if (pageable <= 0 || pinned <= 0) continue;
    Finding f = judge_share({.check = check,
                             .subject = who,
                             .measured_Bps = pageable,
                             .model_Bps = pinned,
                             .share = pageable_vs_pinned,
                             .below = Verdict::warn,
                             .basis = "the driver stages pageable memory through pinned buffers: slower than pinned, "
                                      "by how much the host's memory copy decides",
                             .model_name = "pinned"});
    // Not held against a baseline: in 12 healthy runs on 2 x H200 a GPU's lowest pageable rate was 65-78% of its
    // highest (the host's own memory copy), where the pinned rates' was 99%.
    if (f.verdict == Verdict::warn) {
      f.cause = fmt::format("pageable copies reach {:.0f}% of pinned: the host's own memory copy is slow (a busy or "
                            "far NUMA node)",
                            100 * pageable / pinned);
      f.action = "pin buffers that move often (cudaHostAlloc), and see the numa placement row";
    }
    out.push_back(std::move(f));
  }
  if (g && g->memory_bandwidth_Bps > 0 && p.device_copy_Bps > 0) {
    const double hbm = model::device_copy_Bps(g->memory_bandwidth_Bps);
    Finding f = judge_share({.check = "device copy",
                             .subject = who,
                             .measured_Bps = p.device_copy_Bps,
                             .model_Bps = hbm,
                             .share = device_copy_vs_hbm.warn_below,
                             .fail_share = device_copy_vs_hbm.fail_below,
                             .basis = fmt::format("half of {:.0f} GB/s memory (a copy reads and writes each byte)",
                                                  to_GBps(g->memory_bandwidth_Bps))});
    f.worse = Worse::lower;
    if (f.verdict != Verdict::ok) {
      const std::string slowed = g->clock_events ? clock_slowdowns(*g->clock_events) : "";
      if (const std::string shared = shared_cause(in, p.device); !shared.empty()) f.cause = shared;
      else if (!slowed.empty())
        f.cause = "the GPU slowed its clocks during the pass (" + slowed + "): see clock events";
      else
        f.cause = "the GPU's memory runs below its rating: clocks held down (power or thermal cap) or another "
                  "process on the GPU";
      f.action = "`nvidia-smi -q -d PERFORMANCE,CLOCK` during a run shows the clock event reasons";
    }
    out.push_back(std::move(f));
  }
}

// Each GPU's pinned rates against the median of the selected GPUs of its model.
void like_gpus(const Inputs& in, std::vector<Finding>& out) {
  std::map<std::string, std::vector<double>> by_model;
  for (const model::DeviceProfile& p : in.figures.devices) by_model[p.name].push_back(std::min(p.h2d_Bps, p.d2h_Bps));
  for (const model::DeviceProfile& p : in.figures.devices) {
    const std::vector<double>& like = by_model[p.name];
    if (like.size() < fewest_like) continue;
    const double usual = summarize(like).median;
    const double mine = std::min(p.h2d_Bps, p.d2h_Bps);
    Finding f =
        judge_share({.check = "pinned vs like GPUs",
                     .subject = gpu_subject(p.device),
                     .measured_Bps = mine,
                     .model_Bps = usual,
                     .share = like_median_share,
                     .below = Verdict::fail,
                     .basis = fmt::format("the median of the {} selected {} (slower direction)", like.size(), p.name)});
    if (f.verdict == Verdict::fail) {
      f.cause =
          fmt::format("{:.0f}% of its like: this GPU's link or placement differs from theirs", 100 * mine / usual);
      f.action = "compare its pcie link and numa placement rows with the others'";
    }
    out.push_back(std::move(f));
  }
}

}  // namespace

void judge_gpu_rates(const Inputs& in, std::vector<Finding>& out) {
  for (const model::DeviceProfile& p : in.figures.devices) device_figures(in, p, out);
  like_gpus(in, out);
}

}  // namespace ferry::doctor
