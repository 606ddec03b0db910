#pragma once
// `ferry run beff`: HPCC's effective bandwidth between devices, per transport.
// n participants (devices, or ranks with one device each) form a ring; in
// each exchange every participant sends a message to its right while it
// receives one from its left (ping-ping). For each message size L, looplength
// exchanges make one measurement: b(L, rep) = L x looplength / t, b(L) = the
// best of the repetitions, b_eff = the mean of b(L) over the definition's 21
// sizes, per device; the ring's aggregate is the sum over its devices.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/plan.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"
#include "transport/transport.hpp"

namespace ferry::beff {

// 1 B .. 4 KiB doubling, then 16 KiB .. 2 MiB doubling: the 21 rows of the HPCC FPGA b_eff table.
std::vector<std::uint64_t> definition_sizes();
constexpr std::uint64_t definition_largest = 2 << 20;

struct BeffConfig {
  std::vector<transport::Kind> transports = transport::all_kinds();
  std::vector<int> devices;  // this process's: every device of the ring in one process, one under mpirun
  std::uint64_t max_bytes = definition_largest;  // sizes past 2 MiB (doubling) extend the tail; b_eff stays over the 21
  double min_time_s = 5e-3;                      // looplength is calibrated so one measurement lasts at least this long
  int repetitions = 10;
  std::uint64_t latency_bytes = 8;  // the ping-pong message
  std::uint64_t area_bytes = 0;     // per device, each of its send and receive areas (message slots)
  std::int64_t most_exchanges = 1 << 20;
  transport::Options transport;
  std::uint64_t corrupt_bytes = 0;  // test hook: one byte of one message of this size arrives wrong ...
  int corrupt_repetition = 0;       // ... in this repetition (0-based), so that every repetition's check is seen
  int exit_rank = -1;               // test hook: this rank exits, without a word to the others, ...
  std::uint64_t exit_bytes = 0;     // ... as it starts measuring this size
  std::string profile_origin;       // where the p2p-ce and p2p-sm models' peer figures came from

  // Without options: 10 repetitions of at least 5 ms (as HPCC runs); fewer and shorter on the emulator and with --quick.
  static BeffConfig defaults(const Capabilities& capabilities, bool quick);
  // The definition's 21 sizes, then the tail up to max_bytes.
  std::vector<std::uint64_t> sizes() const;
  // Each area's bytes: area_bytes, or four slots of the largest message where that is more
  // (the first, middle and last exchange keep theirs, the rest share one).
  std::uint64_t area() const;
};

// The environment variable that sets the corruption hook: "SIZE" (the first repetition) or "SIZE@REPETITION",
// counted from 1, as topo's SIZE@ROUND (docs/reliability.md). For tests of verification only.
constexpr const char* corrupt_variable = "FERRY_FAULT_CORRUPT_MESSAGE";
// Sets config.corrupt_bytes and corrupt_repetition from the variable's text. Throws UsageError when malformed.
void parse_corruption(std::string_view text, BeffConfig& config);
// And the one that sets exit_rank and exit_bytes: RANK@SIZE, e.g. 1@4K (docs/reliability.md).
constexpr const char* rank_exit_variable = "FERRY_FAULT_RANK_EXIT";
void parse_rank_exit(std::string_view text, BeffConfig& config);

// The ring's participants: every rank under mpirun (a device each), else this process's devices.
int participants_of(const World& world, const BeffConfig& config);

// Throws UsageError for what cannot run: no device, a device listed twice or
// missing, fewer than 2 participants (nothing to measure between), areas that
// do not fit a device, a max size below the definition's, a corrupted
// repetition the run does not have.
void validate(Backend& backend, const BeffConfig& config, int participants);

// The steps run() takes when every transport can run, each with its work,
// before anything is allocated; run() drops the steps of those that cannot.
Plan plan_run(const BeffConfig& config, int participants);

// Runs every transport on the ring of this process's devices (and every
// rank's, under mpirun). `link_peers`: the peer figures link measured, for
// p2p-ce's and p2p-sm's models (empty: those are fitted like the others). The
// result is complete on rank 0; other ranks get only their share. Throws
// UsageError, on every rank alike, when no transport asked for can run: a run
// that measured nothing has no result to pass.
WorkloadResult run(Backend& backend, World& world, const BeffConfig& config,
                   const std::vector<model::PeerProfile>& link_peers, const Progress& progress);

}  // namespace ferry::beff
