// Rank 0 turns every transport's record into rows: the seed's table per
// transport (the ring's b(L) with the model beside it), every participant's
// samples, the ping-pong latency, the model's terms and the transports side by side.
// A transport's model comes from link's figures where they give one (p2p-ce,
// p2p-sm); it is also fitted to the run's own sizes, and every ring row gives
// its residual against each.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "bench/beff/beff_run.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "model/beff_model.hpp"

namespace ferry::beff {
namespace {

using transport::Kind;

std::int64_t as_param(std::uint64_t v) { return static_cast<std::int64_t>(v); }

Check check_of(std::uint64_t wrong_words) { return wrong_words == 0 ? Check::passed : Check::failed; }

std::uint64_t wrong_words(const SizeRecord& size) {
  return std::accumulate(size.participants.begin(), size.participants.end(), std::uint64_t{0},
                         [](std::uint64_t sum, const Samples& s) { return sum + s.wrong_words; });
}

// The ring finishes a repetition when its slowest participant does.
std::vector<double> slowest_per_repetition(const SizeRecord& size) {
  std::vector<double> slowest = size.participants.front().seconds;
  for (const Samples& s : size.participants)
    for (std::size_t r = 0; r < slowest.size(); ++r) slowest[r] = std::max(slowest[r], s.seconds[r]);
  return slowest;
}

// Seconds of one exchange at the ring's best repetition.
double best_exchange_s(const SizeRecord& size) {
  const std::vector<double> slowest = slowest_per_repetition(size);
  return *std::min_element(slowest.begin(), slowest.end()) / static_cast<double>(size.exchanges);
}

std::string clock_name(transport::Clock clock) {
  return clock == transport::Clock::device ? "device: events" : "host: steady clock";
}

bool in_definition(std::uint64_t bytes) {
  const std::vector<std::uint64_t> sizes = definition_sizes();
  return std::find(sizes.begin(), sizes.end(), bytes) != sizes.end();
}

class ResultBuilder {
 public:
  ResultBuilder(const BeffConfig& config, const std::vector<Member>& members,
                const std::vector<model::PeerProfile>& link_peers)
      : config_(config), members_(members), link_peers_(link_peers), n_(static_cast<int>(members.size())) {}

  WorkloadResult build(const std::vector<TransportRecord>& records) {
    start();
    for (const TransportRecord& record : records) {
      if (!record.skipped.empty()) {
        result_.skipped.push_back(fmt::format("{}: {}", to_string(record.kind), record.skipped));
        continue;
      }
      const TransportModels models = models_of(record);
      add_model_terms(record, models);
      add_ping_pong(record, models);
      for (const SizeRecord& size : record.sizes) {
        add_ring_row(record, size, models);
        add_participant_rows(record, size, models.shown());
      }
      add_beff_row(record, models);
    }
    finish();
    return std::move(result_);
  }

 private:
  void start() {
    result_.workload = "beff";
    result_.config = {
        {"transports", join(config_.transports, ",", [](Kind k) { return std::string(to_string(k)); })},
        {"participants", static_cast<std::int64_t>(n_)},
        {"ring", join(members_, " -> ", [](const Member& m) { return fmt::format("{}:{}", m.host, m.device); })},
        {"sizes", static_cast<std::int64_t>(config_.sizes().size())},
        {"max_bytes", as_param(config_.max_bytes)},
        {"min_time_s", config_.min_time_s},
        {"repetitions", static_cast<std::int64_t>(config_.repetitions)},
        {"latency_bytes", as_param(config_.latency_bytes)},
        {"area_bytes", as_param(config_.area_bytes)},
    };
    result_.sections = {
        {"beff", "b_eff per transport, side by side: the mean of the ring's b(L) over the definition's 21 sizes "
                 "(1 B .. 2 MiB); vs best NCCL: against the NCCL variant with the highest b_eff in this run; model: "
                 "the same mean of n x L / (t_lat + L / B)"},
        {"ring",
         "b(L) of the ring per transport (ping-ping: each device sends L to its right while it receives L from "
         "its left, looplength times); transfer = seconds of the best repetition's slowest device; b(L) = n x L "
         "x looplength / transfer, the best of the repetitions as HPCC defines it; algbw and busbw as nccl-tests' "
         "sendrecv gives them for the same ring: L / (the median repetition's transfer / looplength), busbw = algbw "
         "(nccl-tests averages its ranks' times where ferry takes the slowest device's)"},
        {"latency", fmt::format("One-way latency: {} ping-pong between devices 0 and 1, half a round trip, median "
                                "over repetitions of (time / exchanges)",
                                format_bytes(config_.latency_bytes))},
        {"model", "Model terms per transport: b(L) = L / (t_lat + L / B) per device, for the sizes up to each row's; "
                  "from link where the basis says so, else fitted through this run's own smallest size (8 B where "
                  "it ran) and largest per protocol, which the model then matches by construction"},
        {"model_fitted", "Fitted terms beside a model from link: through this run's own smallest size (8 B where it "
                         "ran) and largest per protocol; the ring's residual (fitted) is against these"},
        {"exchange", "b(L) per device: every participant's own time", false},
    };
  }

  TransportModels models_of(const TransportRecord& record) {
    std::vector<model::MeasuredSize> measured;
    for (const SizeRecord& size : record.sizes) measured.push_back({size.bytes, best_exchange_s(size), size.protocol});
    TransportModels models = transport_models(record.kind, measured, config_, members_, link_peers_);
    if (!models.no_link_model.empty())
      result_.notes.push_back(fmt::format("{}: no model from link ({}), so its model is fitted to this run's smallest "
                                          "and largest sizes alone and matches them by construction",
                                          to_string(record.kind), models.no_link_model));
    return models;
  }

  void add_model_terms(const TransportRecord& record, const TransportModels& models) {
    add_model_terms(record, models.shown(), "model");
    // Beside a model from link only: `ferry model beff --profile` reads the "model" rows, one model per transport.
    if (models.from_link) add_model_terms(record, models.fitted, "model_fitted");
  }

  void add_model_terms(const TransportRecord& record, const model::TransportModel& model, const std::string& section) {
    for (const model::ModelSegment& s : model.segments) {
      Row row;
      row.section = section;
      row.params = {{"transport", std::string(to_string(record.kind))},
                    {"up to bytes", as_param(s.up_to_bytes)},
                    {"B GB/s", to_GBps(s.terms.bandwidth_Bps)},
                    {"balance bytes", as_param(static_cast<std::uint64_t>(s.terms.balance_bytes()))},
                    {"basis", s.basis}};
      row.metric = Metric::latency;  // the row's figure is t_lat
      row.derived = s.terms.latency_s;
      result_.rows.push_back(std::move(row));
    }
  }

  void add_ping_pong(const TransportRecord& record, const TransportModels& models) {
    const SizeRecord& pp = record.ping_pong;
    if (pp.participants.empty()) return;
    Row row;
    row.section = "latency";
    row.params = {{"transport", std::string(to_string(record.kind))},
                  {"bytes", as_param(pp.bytes)},
                  {"exchanges", pp.exchanges},
                  {"protocol", pp.protocol},
                  {"clock", clock_name(record.clock)}};
    row.metric = Metric::latency;
    std::vector<double> one_way;
    for (double s : pp.participants.front().seconds) one_way.push_back(s / static_cast<double>(pp.exchanges));
    row.set_samples(std::move(one_way));
    row.check = check_of(wrong_words(pp));
    if (models.from_link) {
      row.model = models.from_link->segment_for(pp.bytes).terms.exchange_seconds(static_cast<double>(pp.bytes));
      row.model_basis = models.latency_basis;
    }
    latency_us_[record.kind] = to_us(row.value());
    result_.rows.push_back(std::move(row));
  }

  void add_ring_row(const TransportRecord& record, const SizeRecord& size, const TransportModels& models) {
    const model::TransportModel& model = models.shown();
    const double moved =
        static_cast<double>(n_) * static_cast<double>(size.bytes) * static_cast<double>(size.exchanges);
    const std::vector<double> slowest = slowest_per_repetition(size);
    Row row;
    row.section = "ring";
    row.params = {{"transport", std::string(to_string(record.kind))},
                  {"protocol", size.protocol},
                  {"MSize bytes", as_param(size.bytes)},
                  {"looplength", size.exchanges},
                  {"transfer s", *std::min_element(slowest.begin(), slowest.end())}};
    // nccl-tests' sendrecv is this ring (each rank sends to the next, receives from the one before), so its
    // figures are given as it defines them: algbw = bytes a rank sends / time of one, busbw = algbw x 1.
    const double algbw =
        static_cast<double>(size.bytes) * static_cast<double>(size.exchanges) / summarize(slowest).median;
    row.params.push_back({"algbw GB/s", to_GBps(algbw)});
    row.params.push_back({"busbw GB/s", to_GBps(algbw)});
    row.metric = Metric::rate;
    row.headline = Headline::best;
    row.set_samples(slowest);
    row.bytes_per_sample = moved;
    row.model = n_ * model.rate_Bps(size.bytes);
    row.model_basis = model.segment_for(size.bytes).basis;
    row.check = check_of(wrong_words(size));
    if (row.check == Check::failed) row.note = fmt::format("{} wrong 8-byte words", wrong_words(size));
    const std::optional<double> link_Bps = models.link_rate_Bps(size.bytes);
    const double fitted = n_ * models.fitted.rate_Bps(size.bytes);
    row.params.push_back({"residual (link)", link_Bps ? residual_text(row.value() / (n_ * *link_Bps)) : "-"});
    row.params.push_back({"residual (fitted)", residual_text(row.value() / fitted)});
    ring_[record.kind].push_back({size.bytes, row.value(), *row.model, fitted, row.check});
    result_.rows.push_back(std::move(row));
  }

  void add_participant_rows(const TransportRecord& record, const SizeRecord& size, const model::TransportModel& model) {
    for (const Samples& s : size.participants) {
      const Member& m = members_.at(static_cast<std::size_t>(s.participant));
      Row row;
      row.section = "exchange";
      row.params = {{"transport", std::string(to_string(record.kind))},
                    {"participant", s.participant},
                    {"rank", m.rank},
                    {"host", m.host},
                    {"device", m.device},
                    {"bytes", as_param(size.bytes)},
                    {"looplength", size.exchanges}};
      row.metric = Metric::rate;
      row.headline = Headline::best;
      row.set_samples(s.seconds);
      row.bytes_per_sample = static_cast<double>(size.bytes) * static_cast<double>(size.exchanges);
      row.model = model.rate_Bps(size.bytes);
      row.model_basis = model.segment_for(size.bytes).basis;
      row.check = check_of(s.wrong_words);
      result_.rows.push_back(std::move(row));
    }
  }

  void add_beff_row(const TransportRecord& record, const TransportModels& models) {
    const model::TransportModel& model = models.shown();
    const auto& ring = ring_[record.kind];
    double sum = 0, model_sum = 0, fitted_sum = 0;
    int counted = 0;
    bool all_passed = record.ping_pong.participants.empty() || wrong_words(record.ping_pong) == 0;
    for (const RingPoint& p : ring) {
      all_passed = all_passed && p.check == Check::passed;
      if (!in_definition(p.bytes)) continue;
      sum += p.rate;
      model_sum += p.model;
      fitted_sum += p.fitted;
      ++counted;
    }
    Row row;
    row.section = "beff";
    row.metric = Metric::rate;
    row.derived = sum / counted;
    row.model = model_sum / counted;
    row.model_basis = model.segments.size() == 1 ? model.segments.front().basis
                      : models.from_link         ? "link, per protocol: see the model table"
                                                 : "fitted per protocol: see the model table";
    row.check = all_passed ? Check::passed : Check::failed;
    const RingPoint& largest = ring.back();
    row.params = {{"transport", std::string(to_string(record.kind))},
                  {"devices", static_cast<std::int64_t>(n_)},
                  {"per device GB/s", to_GBps(*row.derived / n_)},
                  {"one-way us",
                   latency_us_.contains(record.kind) ? fmt::format("{:.2f}", latency_us_[record.kind]) : "-"},
                  {"largest bytes", as_param(largest.bytes)},
                  {"b(largest) per device GB/s", to_GBps(largest.rate / n_)},
                  {"residual (link)", models.from_link ? residual_text(*row.derived / *row.model) : "-"},
                  {"residual (fitted)", residual_text(*row.derived / (fitted_sum / counted))}};
    beff_[record.kind] = *row.derived;
    beff_fitted_[record.kind] = fitted_sum / counted;
    beff_from_link_[record.kind] = models.from_link.has_value();
    beff_row_[record.kind] = result_.rows.size();
    result_.rows.push_back(std::move(row));
  }

  void finish() {
    if (beff_.empty()) return;
    const auto best =
        std::max_element(beff_.begin(), beff_.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    const std::optional<Kind> nccl = transport::best_nccl({beff_.begin(), beff_.end()});
    for (const auto& [kind, at] : beff_row_) {
      Params& params = result_.rows[at].params;
      params.insert(params.begin() + 3, {"vs best", fmt::format("{:.2f}x", beff_[kind] / best->second)});
      params.insert(params.begin() + 4,
                    {"vs best NCCL", nccl ? fmt::format("{:.2f}x", beff_[kind] / beff_[*nccl]) : std::string("-")});
    }
    for (const auto& [kind, at] : beff_row_) {
      const Row& row = result_.rows[at];
      const bool from_link = beff_from_link_[kind];
      const double fitted = beff_fitted_[kind];
      const std::string models =
          from_link ? fmt::format("model from link {:.4g} GB/s per device (residual {}), fitted {:.4g} (residual {})",
                                  to_GBps(*row.model) / n_, residual_text(row.value() / *row.model),
                                  to_GBps(fitted) / n_, residual_text(row.value() / fitted))
                    : fmt::format("model fitted to this run's sizes {:.4g} GB/s per device (residual {})",
                                  to_GBps(fitted) / n_, residual_text(row.value() / fitted));
      result_.notes.push_back(fmt::format("{}: b_eff = {:.4g} GB/s per device, {:.4g} GB/s for the ring of {}; {}",
                                          to_string(kind), to_GBps(row.value()) / n_, to_GBps(row.value()), n_,
                                          models));
    }
    if (nccl) add_nccl_comparison(*nccl, best->first);
    add_link_comparison(best->first);
    if (latency_us_.contains(Kind::p2p_sm))
      result_.notes.push_back(fmt::format("p2p-sm one-way latency of {}: {:.2f} us (median, half a ping-pong round "
                                          "trip between kernels, device clock)",
                                          format_bytes(config_.latency_bytes), latency_us_[Kind::p2p_sm]));
    if (config_.sizes().size() > definition_sizes().size())
      result_.notes.push_back(fmt::format("sizes past 2 MiB (to {}) extend the ring table; b_eff keeps to the "
                                          "definition's 21 sizes",
                                          format_bytes(config_.max_bytes)));
    result_.notes.push_back("ring: " + join(members_, ", ", [](const Member& m) {
                              return fmt::format("participant {} = rank {} on {}, device {}", m.participant, m.rank,
                                                 m.host, m.device);
                            }));
  }

  // NCCL at its best: the variant with the highest b_eff, its latency, and the best transport against it.
  void add_nccl_comparison(Kind nccl, Kind best) {
    const std::string latency =
        latency_us_.contains(nccl)
            ? fmt::format(", one-way {} latency {:.2f} us", format_bytes(config_.latency_bytes), latency_us_[nccl])
            : "";
    result_.notes.push_back(fmt::format("best NCCL variant: {}, {} (b_eff {:.4g} GB/s per device{}), the others "
                                        "compared with it as \"vs best NCCL\"",
                                        to_string(nccl), nccl_layout(one_rank_per_device(members_), "beff", n_),
                                        to_GBps(beff_[nccl]) / n_, latency));
    if (best != nccl)
      result_.notes.push_back(fmt::format("best transport {}: b_eff {:.2f}x the best NCCL variant's ({}), same run, "
                                          "same sizes",
                                          to_string(best), beff_[best] / beff_[nccl], to_string(nccl)));
  }

  // The best transport's b(L) at its largest size against link's peer copies.
  void add_link_comparison(Kind best) {
    if (link_peers_.empty() || !ring_.contains(best)) return;
    double one_way = 0, both_ways = 0;
    for (const model::PeerProfile& p : link_peers_) {
      one_way = std::max(one_way, p.copy_Bps);
      both_ways = std::max(both_ways, p.bidirectional_Bps / 2);
    }
    const RingPoint& largest = ring_[best].back();
    const double per_device = largest.rate / n_;
    result_.notes.push_back(fmt::format(
        "{} at {}: {:.4g} GB/s per device = {:.3f}x link's peer copy one way ({:.4g} GB/s) and {:.3f}x its rate per "
        "direction both ways ({:.4g} GB/s), link {}",
        to_string(best), format_bytes(largest.bytes), to_GBps(per_device), per_device / one_way, to_GBps(one_way),
        both_ways > 0 ? per_device / both_ways : 0.0, to_GBps(both_ways), config_.profile_origin));
  }

  struct RingPoint {
    std::uint64_t bytes;
    double rate, model, fitted;
    Check check;
  };

  const BeffConfig& config_;
  const std::vector<Member>& members_;
  const std::vector<model::PeerProfile>& link_peers_;
  const int n_;
  WorkloadResult result_;
  std::map<Kind, std::vector<RingPoint>> ring_;
  std::map<Kind, double> beff_;
  std::map<Kind, double> beff_fitted_;
  std::map<Kind, bool> beff_from_link_;
  std::map<Kind, std::size_t> beff_row_;
  std::map<Kind, double> latency_us_;
};

}  // namespace

WorkloadResult make_result(const BeffConfig& config, const std::vector<Member>& members,
                           const std::vector<TransportRecord>& records,
                           const std::vector<model::PeerProfile>& link_peers) {
  return ResultBuilder(config, members, link_peers).build(records);
}

}  // namespace ferry::beff
