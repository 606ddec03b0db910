#pragma once
// `ferry doctor`'s NCCL check: per pair of selected GPUs, beff's
// b(2 MiB) of the ring of the two (each sends 2 MiB to the other, both at
// once) through p2p-ce and through nccl, every message checked on arrival;
// then NCCL's rate held against p2p-ce's on the same pair, naming the NCCL
// variables in force. The measurement runs in one process, on its devices;
// the judgment is pure, like doctor/checks.hpp's.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "core/progress.hpp"
#include "doctor/checks.hpp"

namespace ferry::doctor {

// What one transport did on one pair.
struct PairTransport {
  std::string skipped{};          // why it cannot run here (transport::unavailable_reason's), or ""
  std::string failed{};           // the error it stopped on, once it could run, or ""
  std::string how{};              // how it moved the messages: "copy engine, graph", "ncclSend/Recv 22803"
  double rate_Bps = 0;            // b(L) = 2 x L x exchanges / the slower device's seconds, median of the repetitions
  std::uint64_t wrong_words = 0;  // over every repetition, both devices
};

struct NcclPair {
  int first = 0;  // devices
  int second = 0;
  bool gpu_timings = true;  // false: the emulator's CPU timed it
  bool left_out = false;    // past the pairs doctor measures: nothing ran
  std::string how{};        // the measurement in words, the same for both transports
  PairTransport p2p_ce{};
  PairTransport nccl{};
};

struct NcclCheckConfig {
  std::uint64_t bytes = 2ull << 20;  // L: beff's largest size of the definition
  std::int64_t exchanges = 20;       // per repetition
  int repetitions = 5;
  std::size_t most_pairs = 8;  // 8 GPUs have 28 pairs; 8 of them keep the pass short
  // The test hook: on these pairs, one byte of the first repetition's middle
  // exchange is corrupted on arrival, in every transport that runs.
  std::vector<std::pair<int, int>> corrupt{};

  // A GPU's: p2p-ce's whole part took 3 ms on 2 x H200; a pair took 0.6-1.0 s,
  // nearly all NCCL's opening, connecting and closing. The emulator's: enough
  // to check the messages.
  static NcclCheckConfig for_backend(const Capabilities& capabilities);
};

// Every pair of `devices` in order (0-1, 0-2, ..., 1-2, ...), the first
// config.most_pairs measured, the rest marked left_out. Fewer than 2 devices: none.
std::vector<NcclPair> measure_nccl_pairs(Backend& backend, const std::vector<int>& devices,
                                         const NcclCheckConfig& config, const Progress& progress);

// One finding per measured pair ("nccl vs p2p-ce at 2 MiB"), and one for the
// pairs left out. `environment`: the variables that change data paths, as set
// (Inputs::environment); the NCCL ones are named in the basis and the cause.
std::vector<Finding> judge_nccl(const std::vector<NcclPair>& pairs,
                                const std::vector<std::pair<std::string, std::string>>& environment);

// run_pass's part: the hook's conditions below taken from `fault`, every
// pair measured as the backend's config says, then the slow pairs provoked.
std::vector<NcclPair> nccl_pass(Backend& backend, const std::vector<int>& devices, std::string_view fault,
                                const Progress& progress);

// The test hook's conditions for this check, in FERRY_FAULT_DOCTOR
// (doctor/faults.cpp refuses the hook's unknown conditions; these it
// leaves to this file): nccl-slow=A-B and nccl-corrupt=A-B. Others are ignored.
struct NcclFaults {
  std::vector<std::pair<int, int>> slow{};
  std::vector<std::pair<int, int>> corrupt{};
};
NcclFaults nccl_faults(std::string_view hook);

// nccl-slow=A-B, on any backend: the pair's rates become the healthy 2 x H200
// run's p2p-ce and 0.13x of it for NCCL (what it moved through host memory
// there with NCCL_P2P_DISABLE=1), timed as a GPU's, so the check WARNs end to
// end on the emulator too.
void provoke_slow_nccl(std::vector<NcclPair>& pairs, int first, int second);

}  // namespace ferry::doctor
