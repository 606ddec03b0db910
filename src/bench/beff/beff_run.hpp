#pragma once
// What the parts of one `beff` run share: the measured records, gathered on
// rank 0, from which the rows are made. Internal to bench/beff.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/beff/beff.hpp"
#include "bench/common/exchange_areas.hpp"

namespace ferry::beff {

// One participant's repetitions of one measurement.
struct Samples {
  int participant = 0;
  std::vector<double> seconds;   // one per repetition: `exchanges` exchanges each
  std::uint64_t wrong_words = 0;  // over every repetition
};

// One message size of one transport (or its ping-pong), every participant's samples.
struct SizeRecord {
  std::uint64_t bytes = 0;
  std::int64_t exchanges = 0;     // looplength
  std::string protocol;           // how the transport moved this size
  std::vector<Samples> participants;
};

struct TransportRecord {
  transport::Kind kind{};
  std::string skipped;            // why it did not run, or ""
  transport::Clock clock = transport::Clock::device;
  SizeRecord ping_pong;           // latency_bytes between participants 0 and 1, one way per exchange
  std::vector<SizeRecord> sizes;  // the ring, every size
};

// beff_measure.cpp: runs one transport on this process's share of the ring and gathers every
// participant's samples on rank 0 (other ranks keep their own); a transport
// some rank cannot run (`skipped`, transport::unavailable_anywhere's reason) is only recorded.
TransportRecord measure_transport(Backend& backend, World& world, const BeffConfig& config, transport::Kind kind,
                                  const std::string& skipped, ExchangeAreas& areas, const Progress& progress);

// beff_rows.cpp: the result's rows, tables and notes from every transport's record.
WorkloadResult make_result(const BeffConfig& config, const std::vector<Member>& members,
                           const std::vector<TransportRecord>& records, const std::vector<model::PeerProfile>& link_peers);

}  // namespace ferry::beff
