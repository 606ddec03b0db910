#pragma once
// `ferry run topo`: ping-ping bandwidth per topology, verified every round,
// against what the links promise. The thesis behind it (seed 003) measured
// FPGAs joined by direct links against MPI + PCIe; here the devices are GPUs
// and the links are whatever the transports of beff use.
// - pair: two devices over their direct link, one way and both ways at once;
// - ring: every device sends right and receives from the left at once;
// - fully-connected: every device exchanges with every other at once;
// - host-staged: device -> host, host -> host (memcpy in one process, MPI
//   across ranks), host -> device, every device with every other;
// - matrix: one-way bandwidth and latency for every ordered pair of devices.
// Each size runs `rounds` rounds; each round fills the send areas with values
// derived from element index and round, poisons the receive areas, runs one
// exchange with every participant starting at once, and checks every byte.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/plan.hpp"
#include "core/machine.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"
#include "transport/transport.hpp"

namespace ferry::topo {

enum class Topology { pair, ring, fully_connected, host_staged, matrix };

const std::vector<Topology>& all_topologies();
std::string_view to_string(Topology topology);
// "all", or names separated by commas. Throws UsageError naming an unknown one.
std::vector<Topology> parse_topologies(std::string_view text);

// Powers of two, 1 KiB .. 256 MiB: every one a multiple of any transfer granularity.
std::vector<std::uint64_t> regular_sizes(std::uint64_t largest = 256ull << 20);
// Odd sizes over the same range (no multiple of 2, let alone of 16 or 256): what padding and tails cost.
std::vector<std::uint64_t> irregular_sizes(std::uint64_t largest = 256ull << 20);
// "regular", "irregular", or any list or range of sizes (parse_byte_range).
std::vector<std::uint64_t> parse_sizes(std::string_view text, std::uint64_t largest_default);

struct TopoConfig {
  std::vector<Topology> topologies = all_topologies();
  // The direct topologies' transports; those that cannot run here are skipped with the reason.
  std::vector<transport::Kind> transports = {transport::Kind::p2p_ce,         transport::Kind::p2p_sm,
                                             transport::Kind::nccl,           transport::Kind::nccl_graph,
                                             transport::Kind::nccl_graph_reg, transport::Kind::mpi_cuda};
  std::vector<int> devices;  // this process's: all of them in one process, one under mpirun
  std::vector<std::uint64_t> sizes = regular_sizes();
  int rounds = 100;
  std::uint64_t matrix_bytes = 256ull << 20;    // the pairwise matrix's bandwidth message
  std::uint64_t latency_bytes = 8;              // the pairwise matrix's ping-pong message
  int latency_exchanges = 100;                  // ping-pong exchanges in one latency round
  std::uint64_t highlighted_bytes = 512 << 10;  // the thesis' row for small messages
  transport::Options transport;
  std::uint64_t corrupt_bytes = 0;  // test hook: one byte of this size's message arrives wrong ...
  int corrupt_round = 0;            // ... in this round (0-based)

  // 100 rounds over the regular sizes on a GPU; fewer, smaller and shorter on the emulator and with --quick.
  static TopoConfig defaults(const Capabilities& capabilities, bool quick);
};

// The environment variable that sets the corruption hook: "SIZE" (the first round) or "SIZE@ROUND", counted from 1
// (docs/reliability.md). Tests only.
constexpr const char* corrupt_variable = "FERRY_FAULT_CORRUPT_MESSAGE";
// Sets config.corrupt_bytes and corrupt_round from the variable's text. Throws UsageError when malformed.
void parse_corruption(std::string_view text, TopoConfig& config);

// Throws UsageError for what cannot run: no device, a device listed twice or
// missing, no rounds, a transport that is not direct, areas that do not fit a
// device, a corrupted round the run does not have. `participants`: the devices of the whole run (every rank's).
void validate(Backend& backend, const TopoConfig& config, int participants);

// The steps run() takes when every transport can run, each with its work,
// before anything is allocated; run() drops the steps of those that cannot.
Plan plan_run(Backend& backend, World& world, const Machine& machine, const TopoConfig& config);

// Runs every topology this process (and, under mpirun, every rank) can form.
// `machine`: what the links promise; `link_peers`: link's peer copies in this
// run (empty when not measured). Complete on rank 0; other ranks get their share.
// Throws UsageError, on every rank alike, when every topology and transport
// asked for was skipped: a run that measured nothing has no result to pass.
WorkloadResult run(Backend& backend, World& world, const Machine& machine, const TopoConfig& config,
                   const std::vector<model::PeerProfile>& link_peers, const Progress& progress);

}  // namespace ferry::topo
