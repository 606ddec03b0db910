#pragma once
// The measurement of `ferry doctor`'s NCCL check: per pair of selected GPUs,
// beff's b(2 MiB) of the ring of the two (each sends 2 MiB to the other, both
// at once) through p2p-ce and through nccl, every message checked on arrival.
// It runs in one process, on its devices; doctor/judge/nccl.hpp judges it.
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "core/progress.hpp"
#include "doctor/facts.hpp"

namespace ferry::doctor {

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

// run_pass's part: the hook's NCCL conditions taken from `fault`
// (doctor/faults.hpp), every pair measured as the backend's config says, then
// the slow pairs provoked.
std::vector<NcclPair> nccl_pass(Backend& backend, const std::vector<int>& devices, std::string_view fault,
                                const Progress& progress);

}  // namespace ferry::doctor
