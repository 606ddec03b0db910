#pragma once
// What the parts of one `beff` run share: the measured records, gathered on
// rank 0, from which the rows are made. Internal to bench/beff.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/beff/beff.hpp"

namespace ferry::beff {

// Who a participant is, for the rows: its place in the ring, its device, its rank and host.
struct Member {
  int participant = 0;
  int device = 0;
  int rank = 0;
  std::string host;
};

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

// This process's participants: their send and receive areas, a stream each
// to fill, poison and check them, and a counter of wrong words.
class LocalAreas {
 public:
  // Participants `first_index`, first_index + 1, ... on `devices`, of `participants` in all.
  LocalAreas(Backend& backend, const std::vector<int>& devices, int first_index, int participants,
             std::uint64_t area_bytes, std::uint64_t largest_message);
  const transport::Group& group() const { return group_; }
  std::uint64_t area_bytes() const { return group_.area_bytes; }

  // Each returns once the work is done.
  void fill_send(const transport::ExchangePlan& plan);
  void poison_receive(const transport::ExchangePlan& plan);
  std::uint64_t wrong_words(const transport::ExchangePlan& plan, std::size_t local);
  // The test hook: one byte of the middle exchange's message at participant 0, if it is here.
  void corrupt_one_byte(const transport::ExchangePlan& plan);

 private:
  struct Local {
    std::unique_ptr<Stream> stream;
    Buffer send, receive, counter, counter_host;
  };
  transport::Group group_;
  std::vector<Local> locals_;
};

// beff_measure.cpp: runs one transport on this process's share of the ring and
// gathers every participant's samples on rank 0 (other ranks keep their own).
TransportRecord measure_transport(Backend& backend, World& world, const BeffConfig& config, transport::Kind kind,
                                  LocalAreas& areas, const Progress& progress);

// beff_rows.cpp: the result's rows, tables and notes from every transport's record.
WorkloadResult make_result(const BeffConfig& config, const std::vector<Member>& members,
                           const std::vector<TransportRecord>& records, const std::vector<model::PeerProfile>& link_peers);

}  // namespace ferry::beff
