#include "model/beff_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/units.hpp"
#include "model/profile.hpp"

namespace ferry::model {

LinkTerms fit_two_sizes(double small_bytes, double small_s, double large_bytes, double large_s) {
  if (large_s <= small_s || large_bytes <= small_bytes) return {small_s, large_bytes / large_s};
  const double bandwidth = (large_bytes - small_bytes) / (large_s - small_s);
  return {std::max(0.0, small_s - small_bytes / bandwidth), bandwidth};
}

std::optional<LinkTerms> copy_engine_terms(const PeerProfile& peer) {
  if (peer.copy_times.empty() || peer.both_ways.empty()) return std::nullopt;
  const CopyTime& small = peer.copy_times.front();
  const CopyTime& pair = peer.both_ways.front();
  return fit_two_sizes(static_cast<double>(small.bytes), small.seconds, static_cast<double>(pair.bytes), pair.seconds);
}

std::optional<LinkTerms> peer_store_terms(const PeerProfile& peer, std::string_view protocol) {
  if (peer.flag_one_way_s <= 0 || peer.sm_push_Bps <= 0) return std::nullopt;
  const double each_way_Bps = peer.sm_push_Bps / 2;  // the figure counts the bytes of both devices
  if (protocol == "LL") return LinkTerms{peer.flag_one_way_s, each_way_Bps / 2};
  if (protocol == "direct") return LinkTerms{3 * peer.flag_one_way_s, each_way_Bps};
  return std::nullopt;
}

std::optional<LinkTerms> slowest_hop(const std::vector<PeerProfile>& peers,
                                     const std::vector<std::pair<int, int>>& hops,
                                     const std::function<std::optional<LinkTerms>(const PeerProfile&)>& terms_of) {
  std::optional<LinkTerms> slowest;
  for (const std::pair<int, int>& hop_ends : hops) {
    // A pair, not structured bindings: clang 14 (the fuzz build) cannot capture those in a lambda.
    const auto peer = std::find_if(peers.begin(), peers.end(), [&](const PeerProfile& p) {
      return p.from == hop_ends.first && p.to == hop_ends.second;
    });
    const std::optional<LinkTerms> hop = peer == peers.end() ? std::nullopt : terms_of(*peer);
    if (!hop) return std::nullopt;
    if (!slowest) slowest = hop;
    slowest->latency_s = std::max(slowest->latency_s, hop->latency_s);
    slowest->bandwidth_Bps = std::min(slowest->bandwidth_Bps, hop->bandwidth_Bps);
  }
  return slowest;
}

const ModelSegment& TransportModel::segment_for(std::uint64_t bytes) const {
  if (segments.empty()) throw std::logic_error("a transport model without terms");
  for (const ModelSegment& s : segments)
    if (bytes <= s.up_to_bytes) return s;
  return segments.back();
}

double model_beff_Bps(const TransportModel& model, const std::vector<std::uint64_t>& sizes) {
  double sum = 0;
  for (std::uint64_t bytes : sizes) sum += model.rate_Bps(bytes);
  return sizes.empty() ? 0 : sum / static_cast<double>(sizes.size());
}

TransportModel fit_transport(const std::string& transport, const std::vector<MeasuredSize>& measured,
                             std::uint64_t latency_bytes) {
  TransportModel model{transport, {}};
  for (std::size_t first = 0; first < measured.size();) {
    std::size_t last = first;
    while (last + 1 < measured.size() && measured[last + 1].protocol == measured[first].protocol) ++last;
    // The smallest point: the latency size where the run holds it, else the run's smallest.
    std::size_t small = first;
    for (std::size_t k = first; k <= last; ++k)
      if (measured[k].bytes == latency_bytes) small = k;
    const MeasuredSize& a = measured[small];
    const MeasuredSize& b = measured[last];
    ModelSegment segment;
    segment.up_to_bytes = b.bytes;
    if (small == last) {  // a run of one size: its own time is all latency-free bandwidth
      segment.terms = {0, static_cast<double>(b.bytes) / b.exchange_s};
      segment.basis = fmt::format("{}: fitted to this run's {} alone", b.protocol, format_bytes(b.bytes));
    } else {
      segment.terms =
          fit_two_sizes(static_cast<double>(a.bytes), a.exchange_s, static_cast<double>(b.bytes), b.exchange_s);
      segment.basis =
          fmt::format("{}: fitted to this run's {} and {}", b.protocol, format_bytes(a.bytes), format_bytes(b.bytes));
    }
    model.segments.push_back(segment);
    first = last + 1;
  }
  return model;
}

RingPrediction predict_ring(const TransportModel& model, int devices, int per_node, const LinkTerms& network,
                            bool crosses_network, const std::vector<std::uint64_t>& sizes) {
  RingPrediction p;
  p.devices = devices;
  p.spans_nodes = crosses_network && devices > per_node;
  TransportModel paced = model;
  if (p.spans_nodes) {
    for (ModelSegment& s : paced.segments) {
      s.terms.latency_s = std::max(s.terms.latency_s, network.latency_s);
      s.terms.bandwidth_Bps = std::min(s.terms.bandwidth_Bps, network.bandwidth_Bps);
    }
  }
  p.beff_per_device_Bps = model_beff_Bps(paced, sizes);
  p.beff_ring_Bps = p.beff_per_device_Bps * devices;
  p.pace = paced.segments.back().terms;
  double above = 0, all = 0;
  for (std::uint64_t bytes : sizes) {
    const LinkTerms& t = paced.segment_for(bytes).terms;
    const double rate = t.rate_Bps(static_cast<double>(bytes));
    all += rate;
    if (static_cast<double>(bytes) > t.balance_bytes()) above += rate;
  }
  p.bandwidth_share = all > 0 ? above / all : 0;
  const std::string pace = p.spans_nodes ? "the network hop" : "each hop";
  p.dominant =
      p.bandwidth_share >= 0.5
          ? fmt::format("bandwidth: sizes past {} ({} x {}) give {:.0f}% of b_eff",
                        format_bytes(static_cast<std::uint64_t>(p.pace.balance_bytes())), pace,
                        rate_text(p.pace.bandwidth_Bps), 100 * p.bandwidth_share)
          : fmt::format("latency: {} takes {:.2f} us per exchange; sizes below {} give {:.0f}% of b_eff", pace,
                        to_us(p.pace.latency_s), format_bytes(static_cast<std::uint64_t>(p.pace.balance_bytes())),
                        100 * (1 - p.bandwidth_share));
  return p;
}

}  // namespace ferry::model
