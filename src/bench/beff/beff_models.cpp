// A transport's model: fitted to the run's own sizes, and for p2p-ce and
// p2p-sm also from link's peer figures, which are not the run being explained.
#include <fmt/format.h>

#include "bench/beff/beff_run.hpp"

namespace ferry::beff {
namespace {

using transport::Kind;

class FromLink {
 public:
  FromLink(const BeffConfig& config, const std::vector<Member>& members, const std::vector<model::PeerProfile>& peers)
      : config_(config), members_(members), peers_(peers) {}

  // model::copy_engine_terms of the ring's slowest hop, for every size.
  std::optional<model::TransportModel> p2p_ce(const std::string& name) const {
    const std::optional<model::LinkTerms> terms = model::slowest_hop(peers_, ring_hops(), model::copy_engine_terms);
    if (!terms) return std::nullopt;
    const std::string basis =
        fmt::format("link ({}): 8 B copy one way, 2 MiB copies both ways at once", config_.profile_origin);
    return model::TransportModel{name, {{config_.sizes().back(), *terms, basis}}};
  }

  // model::peer_store_terms of the ring's slowest hop, per run of sizes that share a protocol.
  std::optional<model::TransportModel> p2p_sm(const std::string& name,
                                              const std::vector<model::MeasuredSize>& sizes) const {
    model::TransportModel from_link{name, {}};
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const std::string& protocol = sizes[k].protocol;
      if (k + 1 < sizes.size() && sizes[k + 1].protocol == protocol) continue;
      const std::optional<model::LinkTerms> terms =
          model::slowest_hop(peers_, ring_hops(),
                             [&](const model::PeerProfile& p) { return model::peer_store_terms(p, protocol); });
      if (!terms) return std::nullopt;
      const std::string basis =
          protocol == "LL" ? fmt::format("LL: link ({}): peer flag one way; SM stores each way, half of them tags",
                                         config_.profile_origin)
                           : fmt::format("direct: link ({}): peer flag one way + a round trip for the release; SM "
                                         "stores each way",
                                         config_.profile_origin);
      from_link.segments.push_back({sizes[k].bytes, *terms, basis});
    }
    if (from_link.segments.empty()) return std::nullopt;
    return from_link;
  }

  std::string missing(Kind kind) const {
    if (peers_.empty()) return "link measured no peers for this run";
    return fmt::format("link's peer figures ({}) lack {} for a hop of the ring", config_.profile_origin,
                       kind == Kind::p2p_ce ? "the 8 B and 2 MiB copies" : "the peer flag or the SM stores");
  }

 private:
  // Both directions of every hop of the ring: a ring moves at its slowest.
  std::vector<std::pair<int, int>> ring_hops() const {
    std::vector<std::pair<int, int>> hops;
    const std::size_t n = members_.size();
    for (std::size_t p = 0; p < n; ++p) {
      const int a = members_[p].device, b = members_[(p + 1) % n].device;
      hops.insert(hops.end(), {{a, b}, {b, a}});
    }
    return hops;
  }

  const BeffConfig& config_;
  const std::vector<Member>& members_;
  const std::vector<model::PeerProfile>& peers_;
};

}  // namespace

TransportModels transport_models(Kind kind, const std::vector<model::MeasuredSize>& measured, const BeffConfig& config,
                                 const std::vector<Member>& members,
                                 const std::vector<model::PeerProfile>& link_peers) {
  const std::string name(to_string(kind));
  TransportModels models;
  models.fitted = model::fit_transport(name, measured, config.latency_bytes);
  const FromLink link(config, members, link_peers);
  if (kind == Kind::p2p_ce) {
    models.from_link = link.p2p_ce(name);
    models.latency_basis = "link: peer copy latency (events)";
  } else if (kind == Kind::p2p_sm) {
    models.from_link = link.p2p_sm(name, measured);
    models.latency_basis = "link: peer flag one way (kernel clock), SM stores";
  } else {
    return models;
  }
  if (!models.from_link) models.no_link_model = link.missing(kind);
  return models;
}

}  // namespace ferry::beff
