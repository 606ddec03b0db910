// Rank 0 turns the rounds into rows: bandwidth per topology and size (the
// thesis' plots, min..max over rounds), the peak table (theoretical, observed
// and its share, the highlighted 512 KiB, link's peer copies beside the
// direct ones, the host path against the direct one), the pairwise matrix and
// the host step on its own.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "bench/topo/topo_run.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::topo {
namespace {

using transport::Kind;

std::int64_t as_param(std::uint64_t v) { return static_cast<std::int64_t>(v); }

std::string ratio_text(double r) { return r > 0 ? fmt::format("{:.2f}x", r) : "-"; }
std::string percent_text(double r) { return r > 0 ? fmt::format("{:.1f}%", 100 * r) : "-"; }

Check check_of(const Rounds& rounds) { return rounds.wrong_words == 0 ? Check::passed : Check::failed; }

std::string wrong_note(const Rounds& rounds, int total_rounds) {
  if (rounds.wrong_words == 0) return "";
  return fmt::format("{}: round {} of {} arrived wrong ({} wrong word{} over every round)", format_bytes(rounds.bytes),
                     rounds.first_wrong_round + 1, total_rounds, rounds.wrong_words,
                     rounds.wrong_words == 1 ? "" : "s");
}

void set_model(Row& row, const Peak& peak) {
  if (peak.Bps <= 0) return;
  row.model = peak.Bps;
  row.model_basis = peak.basis;
}

Row rate_row(std::string section, Params params, const Rounds& rounds, double bytes_per_sample, int total_rounds) {
  Row row;
  row.section = std::move(section);
  row.params = std::move(params);
  row.metric = Metric::rate;
  row.bytes_per_sample = bytes_per_sample;
  row.set_samples(rounds.seconds);
  row.check = check_of(rounds);
  row.note = wrong_note(rounds, total_rounds);
  return row;
}

// The size nearest the highlighted one, on a log scale.
const Rounds* nearest(const std::vector<Rounds>& sizes, std::uint64_t bytes) {
  const Rounds* best = nullptr;
  double distance = 0;
  for (const Rounds& r : sizes) {
    const double d = std::abs(std::log2(static_cast<double>(r.bytes)) - std::log2(static_cast<double>(bytes)));
    if (!best || d < distance) best = &r, distance = d;
  }
  return best;
}

class ResultBuilder {
 public:
  ResultBuilder(const TopoConfig& config) : config_(config) {}

  WorkloadResult build(const std::vector<TopologyRecord>& topologies, const std::vector<MatrixCell>& matrix,
                       const std::vector<HostStep>& host_steps, std::vector<std::string> skipped) {
    start();
    for (const TopologyRecord& t : topologies) add_bandwidth(t);
    for (const TopologyRecord& t : topologies) add_peak(t, topologies);
    add_nccl_notes(topologies);
    for (const MatrixCell& cell : matrix) add_matrix(cell);
    for (const HostStep& step : host_steps) add_host(step);
    result_.skipped = std::move(skipped);
    return std::move(result_);
  }

 private:
  void start() {
    result_.workload = "topo";
    result_.config = {
        {"rounds", static_cast<std::int64_t>(config_.rounds)},
        {"sizes", join(config_.sizes, ",", [](std::uint64_t b) { return std::to_string(b); })},
        {"matrix_bytes", as_param(config_.matrix_bytes)},
        {"latency_bytes", as_param(config_.latency_bytes)},
        {"latency_exchanges", static_cast<std::int64_t>(config_.latency_exchanges)},
        {"highlighted_bytes", as_param(config_.highlighted_bytes)},
    };
    result_.sections = {
        {"peak",
         fmt::format("Peak per topology (the thesis' tables): theoretical from what the machine reports "
                     "(NVLink count x rate, PCIe generation x width, host-staged 1 / (1/P_pcie + 1/P_host + "
                     "1/P_pcie) with P_host measured), observed = the best median over sizes, {} highlighted; "
                     "direct topologies beside link's peer copies in this run and the best NCCL variant's peak on "
                     "the same topology (vs best NCCL), host-staged beside the direct path",
                     format_bytes(config_.highlighted_bytes))},
        {"bandwidth",
         fmt::format("Ping-ping bandwidth per topology: every device starts sending at once, one exchange a "
                     "round, {} rounds per size, every byte checked each round; GB/s = bytes each device "
                     "sends / the slowest device's time, per direction; median over rounds, min and max "
                     "beside it; model = the theoretical peak; a ring (pair both among them) is nccl-tests' "
                     "sendrecv, whose algbw this is, and busbw = algbw",
                     config_.rounds)},
        {"matrix", "Pairwise matrix: one-way bandwidth for every ordered pair of devices, per transport"},
        {"matrix-latency", fmt::format("Pairwise matrix: one-way latency, a {} ping-pong of {} exchanges a round, "
                                       "median over rounds of (time / exchanges)",
                                       format_bytes(config_.latency_bytes), config_.latency_exchanges)},
        {"host",
         "The host -> host step of the host path on its own, per message size (P_host of the host-staged peak: the "
         "fastest)"},
    };
  }

  Params identity(const TopologyRecord& t) const {
    return {{"topology", t.name}, {"transport", std::string(to_string(t.kind))}, {"devices", t.members}};
  }

  void add_bandwidth(const TopologyRecord& t) {
    for (const Rounds& rounds : t.sizes) {
      Params params = identity(t);
      params.emplace_back("how", rounds.how);
      params.emplace_back("bytes", as_param(rounds.bytes));
      Row row = rate_row("bandwidth", std::move(params), rounds, static_cast<double>(rounds.bytes) * t.routes,
                         config_.rounds);
      // A ring (the pair both ways among them) is nccl-tests' sendrecv: each device sends to the next and receives
      // from the one before, so its figure is also sendrecv's algbw, and busbw = algbw.
      const ParamValue algbw = t.pattern == transport::Pattern::ring && row.has_samples()
                                   ? ParamValue(to_GBps(row.value()))
                                   : ParamValue(std::string("-"));
      row.params.emplace_back("algbw GB/s", algbw);
      row.params.emplace_back("busbw GB/s", algbw);
      set_model(row, t.theoretical);
      result_.rows.push_back(std::move(row));
    }
  }

  // A size's figure as its bandwidth row reads it: bytes / the median round.
  static double median_Bps(const TopologyRecord& t, const Rounds& r) {
    if (r.seconds.empty()) return 0;
    Row row;
    row.metric = Metric::rate;
    row.bytes_per_sample = static_cast<double>(r.bytes) * t.routes;
    row.set_samples(r.seconds);
    return row.value();
  }

  // The best median over sizes, and its size.
  static std::pair<double, std::uint64_t> observed_peak(const TopologyRecord& t) {
    double best = 0;
    std::uint64_t at = 0;
    for (const Rounds& r : t.sizes)
      if (const double Bps = median_Bps(t, r); Bps > best) best = Bps, at = r.bytes;
    return {best, at};
  }

  // The direct record a host-staged one is set beside: the same devices, the same pattern's variant.
  static const TopologyRecord* direct_for(const TopologyRecord& staged_record, const std::vector<TopologyRecord>& all) {
    const std::string wanted = staged_record.routes > 1 ? "fully-connected" : "pair both";
    for (const TopologyRecord& t : all)
      if (!transport::through_host(t.kind) && t.name == wanted) return &t;
    return nullptr;
  }

  void add_peak(const TopologyRecord& t, const std::vector<TopologyRecord>& all) {
    const auto [peak, at] = observed_peak(t);
    const Rounds* highlighted = nearest(t.sizes, config_.highlighted_bytes);
    const double at_highlight = highlighted ? median_Bps(t, *highlighted) : 0;
    Row row;
    row.section = "peak";
    row.params = identity(t);
    row.metric = Metric::rate;
    row.derived = peak;
    row.params.emplace_back("peak at bytes", as_param(at));
    row.params.emplace_back("highlighted bytes", as_param(highlighted ? highlighted->bytes : 0));
    row.params.emplace_back("GB/s there", to_GBps(at_highlight));
    row.params.emplace_back("% of theoretical there",
                            percent_text(t.theoretical.Bps > 0 ? at_highlight / t.theoretical.Bps : 0));
    if (transport::through_host(t.kind)) {
      const TopologyRecord* direct = direct_for(t, all);
      const double direct_peak = direct ? observed_peak(*direct).first : 0;
      row.params.emplace_back("compared with", direct ? fmt::format("{} by {}", direct->name, to_string(direct->kind))
                                                      : std::string("-"));
      row.params.emplace_back("ratio", ratio_text(direct_peak > 0 ? peak / direct_peak : 0));
      if (direct && direct_peak > 0)
        result_.notes.push_back(fmt::format(
            "host-staged ({}) peaks at {:.2f} GB/s, {:.3f}x the direct path ({} by {}, {:.1f} GB/s); at {} it moves "
            "{:.2f} GB/s against {:.1f}",
            to_string(t.kind), to_GBps(peak), peak / direct_peak, direct->name, to_string(direct->kind),
            to_GBps(direct_peak), format_bytes(highlighted ? highlighted->bytes : 0), to_GBps(at_highlight),
            to_GBps(highlighted ? median_Bps(*direct, *nearest(direct->sizes, highlighted->bytes)) : 0)));
    } else {
      row.params.emplace_back("compared with", t.link.Bps > 0 ? t.link.basis : std::string("-"));
      row.params.emplace_back("ratio", ratio_text(t.link.Bps > 0 ? peak / t.link.Bps : 0));
      const TopologyRecord* nccl = best_nccl_for(t, all);
      row.params.emplace_back("vs best NCCL", ratio_text(nccl ? peak / observed_peak(*nccl).first : 0));
    }
    set_model(row, t.theoretical);
    const bool intact = std::all_of(t.sizes.begin(), t.sizes.end(), [](const Rounds& r) { return r.wrong_words == 0; });
    row.check = intact ? Check::passed : Check::failed;
    result_.rows.push_back(std::move(row));
  }

  // The NCCL variant with the highest peak on the same topology and devices: what "vs best NCCL" compares with.
  static const TopologyRecord* best_nccl_for(const TopologyRecord& t, const std::vector<TopologyRecord>& all) {
    std::vector<std::pair<Kind, double>> peaks;
    for (const TopologyRecord& r : all)
      if (r.name == t.name && r.members == t.members) peaks.emplace_back(r.kind, observed_peak(r).first);
    const std::optional<Kind> best = transport::best_nccl(peaks);
    for (const TopologyRecord& r : all)
      if (best && r.name == t.name && r.members == t.members && r.kind == *best) return &r;
    return nullptr;
  }

  // Per topology: which NCCL variant was best, and the best transport against it.
  void add_nccl_notes(const std::vector<TopologyRecord>& all) {
    for (const TopologyRecord& t : all) {
      const TopologyRecord* nccl = best_nccl_for(t, all);
      if (nccl != &t) continue;  // once per topology, at its best NCCL record
      const auto [nccl_peak, nccl_at] = observed_peak(t);
      const TopologyRecord* best = &t;
      for (const TopologyRecord& r : all)
        if (r.name == t.name && r.members == t.members && observed_peak(r).first > observed_peak(*best).first)
          best = &r;
      std::string note =
          fmt::format("{}: best NCCL variant {}, {}, peaks at {:.1f} GB/s ({})", t.name, to_string(t.kind),
                      nccl_layout(t.one_per_rank, "topo", t.participants), to_GBps(nccl_peak), format_bytes(nccl_at));
      if (best != &t)
        note += fmt::format("; {} peaks {:.2f}x higher", to_string(best->kind), observed_peak(*best).first / nccl_peak);
      result_.notes.push_back(std::move(note));
    }
  }

  void add_matrix(const MatrixCell& cell) {
    const Params who = {{"transport", std::string(to_string(cell.kind))}, {"from", cell.from}, {"to", cell.to}};
    Params bandwidth = who;
    bandwidth.emplace_back("bytes", as_param(cell.bandwidth.bytes));
    Row row = rate_row("matrix", std::move(bandwidth), cell.bandwidth, static_cast<double>(cell.bandwidth.bytes),
                       config_.rounds);
    set_model(row, cell.theoretical);
    result_.rows.push_back(std::move(row));

    Params latency = who;
    latency.emplace_back("bytes", as_param(cell.latency.bytes));
    Row one_way;
    one_way.section = "matrix-latency";
    one_way.params = std::move(latency);
    one_way.metric = Metric::latency;
    one_way.set_samples(cell.latency.seconds);
    one_way.check = check_of(cell.latency);
    one_way.note = wrong_note(cell.latency, config_.rounds);
    result_.rows.push_back(std::move(one_way));
  }

  void add_host(const HostStep& host) {
    Row row;
    row.section = "host";
    row.params = {{"how", host.how}, {"bytes", as_param(host.bytes)}};
    row.metric = Metric::rate;
    row.bytes_per_sample = static_cast<double>(host.bytes);
    row.headline = Headline::best;  // P_host is the step's ceiling
    row.set_samples(host.seconds);
    row.check = host.seconds.empty() ? Check::failed : Check::passed;
    if (host.seconds.empty()) row.note = "the host copy did not arrive intact";
    result_.rows.push_back(std::move(row));
  }

  const TopoConfig& config_;
  WorkloadResult result_;
};

}  // namespace

WorkloadResult make_result(const TopoConfig& config, const std::vector<TopologyRecord>& topologies,
                           const std::vector<MatrixCell>& matrix, const std::vector<HostStep>& host_steps,
                           std::vector<std::string> skipped) {
  return ResultBuilder(config).build(topologies, matrix, host_steps, std::move(skipped));
}

}  // namespace ferry::topo
