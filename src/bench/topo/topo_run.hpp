#pragma once
// What the parts of one `topo` run share: the measured rounds of every
// topology and pair, from which the rows are made. Internal to bench/topo.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/common/exchange_areas.hpp"
#include "bench/topo/topo.hpp"
#include "model/link_model.hpp"

namespace ferry::topo {

// One size's rounds.
struct Rounds {
  std::uint64_t bytes = 0;
  std::string how;                // how the transport moved this size
  std::vector<double> seconds;    // per round: the slowest participant's (a ping-pong's: one way)
  std::uint64_t wrong_words = 0;  // over every round
  int first_wrong_round = -1;     // 0-based; -1 when every round arrived intact
};

// What a topology's figures are set against: per device and direction.
using Peak = model::RatedLink;

// One topology (or variant of it) on one transport, every size.
struct TopologyRecord {
  std::string name;  // "pair one-way", "pair both", "ring", "fully-connected", "host-staged"
  transport::Kind kind{};
  transport::Pattern pattern = transport::Pattern::ring;
  transport::Clock clock = transport::Clock::device;
  std::string members;  // "0,1" or "host:0 -> host:1" across ranks
  int participants = 2;
  bool one_per_rank = false;  // a rank per device (mpirun), or one process driving every device
  int routes = 1;             // messages each device sends per round
  Peak theoretical;
  Peak link;  // link's peer copies in this run, for the same direction(s)
  std::vector<Rounds> sizes;
};

// One ordered pair of the matrix on one transport.
struct MatrixCell {
  transport::Kind kind{};
  int from = 0, to = 0;  // devices
  Rounds bandwidth;      // one way, config.matrix_bytes
  Rounds latency;        // ping-pong of config.latency_bytes, one-way seconds per round
  Peak theoretical;
};

// topo_measure.cpp: `rounds` rounds of one plan's pattern per size on an open
// transport; every rank takes part, rank 0 has the slowest seconds.
class RoundRunner {
 public:
  RoundRunner(transport::Transport& transport, World& world, ExchangeAreas& areas, const TopoConfig& config)
      : transport_(transport), world_(world), areas_(areas), config_(config) {}
  // One exchange per round: every participant sends its message(s) at once.
  Rounds bandwidth(transport::Pattern pattern, std::uint64_t bytes);
  // config.latency_exchanges ping-pong exchanges per round, one way each.
  Rounds latency();

 private:
  Rounds run_rounds(const transport::ExchangePlan& plan, double per_exchange);

  transport::Transport& transport_;
  World& world_;
  ExchangeAreas& areas_;
  const TopoConfig& config_;
};

// topo_plan.cpp
// Who takes part: a device per rank under mpirun, else the devices of --devices.
struct Participants {
  bool one_per_rank = false;
  int count = 0;
};
Participants participants_of(const World& world, const TopoConfig& config);
// Why these participants cannot form `topology` ("" when they can): a ring of 2 devices is the pair.
std::string cannot_form(Topology topology, Participants who);
// The host -> host step is timed at 1, 4, 16 and 64 MiB, as far as the run's largest size; at the largest
// alone when it is below 1 MiB.
std::vector<std::uint64_t> host_step_sizes(const TopoConfig& config);

// topo_peaks.cpp: what the machine says its links carry (a pair's: model::peer_link).
Peak direct_peak(const Machine& machine, transport::Pattern pattern, const std::vector<int>& devices);
// host_Bps: the fastest host step, of host_bytes messages.
Peak host_staged_peak(const Machine& machine, const std::vector<int>& devices, double host_Bps,
                      std::uint64_t host_bytes);
// Link's peer copies in this run for the same directions (per direction); {0, ""} when it has none.
Peak link_peak(const std::vector<model::PeerProfile>& peers, transport::Pattern pattern,
               const std::vector<int>& devices);

// topo_rows.cpp
// The host -> host step alone at one message size (P_host of the host-staged peak is the fastest).
struct HostStep {
  double Bps = 0;   // best of its timings; 0 when the copy did not arrive intact
  std::string how;  // "memcpy between pinned buffers, ..." or "MPI_Sendrecv between the ranks' ..."
  std::vector<double> seconds;
  std::uint64_t bytes = 0;
};
WorkloadResult make_result(const TopoConfig& config, const std::vector<TopologyRecord>& topologies,
                           const std::vector<MatrixCell>& matrix, const std::vector<HostStep>& host_steps,
                           std::vector<std::string> skipped);

}  // namespace ferry::topo
