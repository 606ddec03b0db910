#pragma once
// The b_eff model: a message of L bytes costs t_lat + L / B per exchange, so
// b(L) = L / (t_lat + L / B), and b_eff is the mean of b(L) over the
// definition's sizes. A transport that changes protocol with the size (p2p-sm:
// LL, then direct) has one (t_lat, B) per protocol, each over its own sizes.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ferry::model {

struct LinkTerms {
  double latency_s = 0;
  double bandwidth_Bps = 0;

  double exchange_seconds(double bytes) const { return latency_s + bytes / bandwidth_Bps; }
  double rate_Bps(double bytes) const { return bytes / exchange_seconds(bytes); }
  // The size at which the two terms are equal: latency-bound below, bandwidth-bound above.
  double balance_bytes() const { return latency_s * bandwidth_Bps; }
};

// The terms that pass through (small_bytes, small_s) and (large_bytes, large_s),
// the per-exchange times of two sizes. When noise makes the larger no slower,
// the bandwidth is the large size's own rate.
LinkTerms fit_two_sizes(double small_bytes, double small_s, double large_bytes, double large_s);

struct ModelSegment {
  std::uint64_t up_to_bytes = 0;  // the segment covers sizes up to this one (the last: every size past it too)
  LinkTerms terms;
  std::string basis;  // where the terms came from
};

struct TransportModel {
  std::string transport;
  std::vector<ModelSegment> segments;  // ascending up_to_bytes

  const ModelSegment& segment_for(std::uint64_t bytes) const;
  double rate_Bps(std::uint64_t bytes) const { return segment_for(bytes).terms.rate_Bps(static_cast<double>(bytes)); }
};

// Mean of the model's b(L) over `sizes`: its b_eff per device.
double model_beff_Bps(const TransportModel& model, const std::vector<std::uint64_t>& sizes);

struct PeerProfile;

// p2p-ce's terms for one direction of a hop, from link's figures: the fixed
// cost of its 8 B copy one way, and the rate of its 2 MiB copies both ways at
// once, as every hop of a ring copies both ways at once. Nothing when the
// profile lacks them (profiles from before beff).
std::optional<LinkTerms> copy_engine_terms(const PeerProfile& peer);

// p2p-sm's terms for one direction of a hop and one of its protocols ("LL",
// "direct"), from link's figures, as p2p_sm_kernel.hpp moves a message. An LL
// message's lines are their own flags: it pays a flag one way, and stores 16
// bytes for every 8 of data. A direct message stores data alone, then
// releases (which waits for its stores to be acknowledged: a round trip, two
// flags one way) and raises its flag, one way. B is the SM stores' rate per
// direction with both devices storing into the other at once, as every hop of
// a ring stores both ways. Nothing for another protocol, or when the profile
// lacks the peer flag or the SM stores (profiles from before them).
std::optional<LinkTerms> peer_store_terms(const PeerProfile& peer, std::string_view protocol);

// The slowest of `terms_of` over the peer figures of every hop (from, to):
// the highest latency and the lowest bandwidth, as a ring moves at its slowest
// hop's pace. Nothing when a hop has no figures or `terms_of` gives none.
std::optional<LinkTerms> slowest_hop(const std::vector<PeerProfile>& peers,
                                     const std::vector<std::pair<int, int>>& hops,
                                     const std::function<std::optional<LinkTerms>(const PeerProfile&)>& terms_of);

// One point to fit: a size, its per-exchange seconds, and the protocol that moved it.
struct MeasuredSize {
  std::uint64_t bytes = 0;
  double exchange_s = 0;
  std::string protocol;
};

// Per run of sizes that share a protocol, (t_lat, B) through its smallest
// size (8 B where the run holds it) and its largest: the rule docs/beff.md
// states. Those two sizes match by construction; each basis says so.
TransportModel fit_transport(const std::string& transport, const std::vector<MeasuredSize>& measured,
                             std::uint64_t latency_bytes);

// A ring of `devices` with `per_node` of them on each node: within a node each
// hop is the transport's own; once the ring spans nodes, the ring moves in
// lockstep, so the slowest hop (the network's) sets every device's pace.
struct RingPrediction {
  int devices = 0;
  bool spans_nodes = false;
  double beff_per_device_Bps = 0;
  double beff_ring_Bps = 0;
  LinkTerms pace;              // the terms of the hop that sets the pace at the largest size
  double bandwidth_share = 0;  // share of b_eff from sizes above the balance size (bandwidth-bound)
  std::string dominant;        // in words: which term sets b_eff
};

RingPrediction predict_ring(const TransportModel& model, int devices, int per_node, const LinkTerms& network,
                            bool crosses_network, const std::vector<std::uint64_t>& sizes);

}  // namespace ferry::model

namespace ferry::model {

// What `ferry model beff` scales up, read from a file: a beff results file
// (its fitted terms per transport) or a machine profile (link's peer figures,
// which give p2p-ce's terms).
// How the run that measured the terms drove its devices.
enum class Layout { unknown, one_process, rank_per_device };

struct TransportTerms {
  std::vector<TransportModel> transports;
  int devices = 0;  // the ring the terms were measured on (0: unknown)
  // From a beff results file's exchange rows: every one on rank 0, or some on another rank (mpirun).
  Layout layout = Layout::unknown;
  std::string origin;  // "beff results r.json" or "machine profile p.json"
  // What in a results file failed verification (a machine profile has no checks):
  // each row whose check FAILED, named by workload, section and the params that
  // find it, and whether the file's (or a workload's) verification says FAILED.
  std::vector<std::string> failed_rows;
  bool run_failed = false;
  // A results file a run left when it ended early (its "incomplete" field):
  // why, and how far it got; empty for a complete file or a profile.
  std::string incomplete;
  // The host of each participant of the ring, in ring order, from the exchange
  // rows; empty for a profile, "" for a participant the file does not place.
  std::vector<std::string> participant_hosts;
  // Each transport's measured b_eff per device (its beff row), in bytes/s.
  std::vector<std::pair<std::string, double>> beff_per_device_Bps;

  bool input_passed() const { return failed_rows.empty() && !run_failed; }
};

// The hop between nodes as a ring whose every hop crosses hosts measured it:
// t_lat of its smallest size, B of its largest.
LinkTerms hop_terms(const TransportModel& model);

// The hosts of a ring in order, "node1, node2, ..." (each named once where
// they repeat in turn), and how many participants the busiest host has.
std::string ring_hosts_in_words(const TransportTerms& terms);
int participants_per_host(const TransportTerms& terms);

// Throws UsageError naming the file when it holds neither.
TransportTerms read_transport_terms(const std::string& path);
// The same from a results document's text; `origin` names it in messages.
TransportTerms transport_terms_from_json(const std::string& text, const std::string& origin);

}  // namespace ferry::model
