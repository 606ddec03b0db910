#pragma once
// What the parts of one `beff` run share: the measured records, gathered on
// rank 0, from which the rows are made. Internal to bench/beff.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/beff/beff.hpp"
#include "bench/common/exchange_areas.hpp"
#include "model/beff_model.hpp"

namespace ferry::beff {

// One participant's repetitions of one measurement.
struct Samples {
  int participant = 0;
  std::vector<double> seconds;    // one per repetition: `exchanges` exchanges each
  std::uint64_t wrong_words = 0;  // over every repetition
};

// One message size of one transport (or its ping-pong), every participant's samples.
struct SizeRecord {
  std::uint64_t bytes = 0;
  std::int64_t exchanges = 0;  // looplength
  std::string protocol;        // how the transport moved this size
  std::vector<Samples> participants;
};

struct TransportRecord {
  transport::Kind kind{};
  std::string skipped;  // why it did not run, or ""
  transport::Clock clock = transport::Clock::device;
  SizeRecord ping_pong;           // latency_bytes between participants 0 and 1, one way per exchange
  std::vector<SizeRecord> sizes;  // the ring, every size
};

// beff_measure.cpp: one size of `pattern` on an open transport: the warm-up,
// the looplength, then config.repetitions repetitions, each checked; the
// samples of this process's participants, each its own seconds.
SizeRecord measure_size(transport::Transport& transport, World& world, ExchangeAreas& areas, const BeffConfig& config,
                        transport::Pattern pattern, std::uint64_t bytes);

// beff_measure.cpp: runs one transport on this process's share of the ring and gathers every
// participant's samples on rank 0 (other ranks keep their own); a transport
// some rank cannot run (`skipped`, transport::unavailable_anywhere's reason) is only recorded.
TransportRecord measure_transport(Backend& backend, World& world, const BeffConfig& config, transport::Kind kind,
                                  const std::string& skipped, ExchangeAreas& areas, const Progress& progress);

// A transport's model from link's figures where there is one, and the one fitted to this run's sizes.
struct TransportModels {
  model::TransportModel fitted;
  std::optional<model::TransportModel> from_link;
  std::string latency_basis;  // what link's model of the ping-pong stands on
  std::string no_link_model;  // p2p-ce and p2p-sm without one: why

  const model::TransportModel& shown() const { return from_link ? *from_link : fitted; }
  std::optional<double> link_rate_Bps(std::uint64_t bytes) const {
    return from_link ? std::optional(from_link->rate_Bps(bytes)) : std::nullopt;
  }
};

// beff_models.cpp: every transport fitted to `measured`, its own sizes (the
// rule of model::fit_transport); p2p-ce and p2p-sm also from link's peer
// figures, the ring's slowest hop, where `link_peers` has them.
TransportModels transport_models(transport::Kind kind, const std::vector<model::MeasuredSize>& measured,
                                 const BeffConfig& config, const std::vector<Member>& members,
                                 const std::vector<model::PeerProfile>& link_peers);

// beff_rows.cpp: the result's rows, tables and notes from every transport's record.
WorkloadResult make_result(const BeffConfig& config, const std::vector<Member>& members,
                           const std::vector<TransportRecord>& records,
                           const std::vector<model::PeerProfile>& link_peers);

}  // namespace ferry::beff
