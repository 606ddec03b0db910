#pragma once
// What `ferry doctor`'s pass read and measured, as its judgments take it: the
// machine's facts and link's figures (Inputs), and each pair's b(2 MiB)
// through NCCL and the copy engines (NcclPair). The measuring side
// (doctor/measure/) fills them; nothing here reads the machine.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/machine.hpp"
#include "model/profile.hpp"

namespace ferry::doctor {

// Where the process may run and where each GPU is attached.
struct Placement {
  std::vector<int> process_nodes{};                 // NUMA nodes of the CPUs this process may run on; empty: unknown
  std::vector<std::pair<int, int>> device_nodes{};  // (device, NUMA node); a node of -1 or a missing device: unknown
  std::vector<int> process_cpus{};                  // the CPUs sched_getaffinity allows; empty: unknown
  int pinned_node = -1;                             // the node of a pinned buffer doctor allocated; -1: unknown
};

struct Inputs {
  Machine machine{};  // the GPUs' PCIe links as read while a copy ran
  std::vector<int> devices{};
  model::MachineProfile figures{};  // link's figures from this pass
  bool verification_passed = true;
  int checked_rows = 0;
  std::vector<std::pair<std::string, std::string>> environment{};  // variables that change data paths, as set
  Placement placement{};
  // (device, traffic): NVML's PCIe counters read after the pass, with nothing of
  // doctor's moving; a missing device: unknown.
  std::vector<std::pair<int, PcieTraffic>> idle_pcie_traffic{};
};

// What one transport did on one pair.
struct PairTransport {
  std::string skipped{};          // why it cannot run here (transport::unavailable_reason's), or ""
  std::string failed{};           // the error it stopped on, once it could run, or ""
  std::string how{};              // how it moved the messages: "copy engine, graph", "ncclSend/Recv 22803"
  double rate_Bps = 0;            // b(L) = 2 x L x exchanges / the slower device's seconds, median of the repetitions
  std::uint64_t wrong_words = 0;  // over every repetition, both devices
};

// A pair of selected GPUs: b(2 MiB) of the ring of the two through p2p-ce and through nccl.
struct NcclPair {
  int first = 0;  // devices
  int second = 0;
  bool gpu_timings = true;  // false: the emulator's CPU timed it
  bool left_out = false;    // past the pairs doctor measures: nothing ran
  std::string how{};        // the measurement in words, the same for both transports
  PairTransport p2p_ce{};
  PairTransport nccl{};
};

// The variables doctor reports when set, each with what it changes.
const std::vector<std::pair<std::string, std::string>>& path_variables();

// The facts of `device`; nullptr when the machine has no such GPU.
const GpuFacts* gpu_facts(const Machine& machine, int device);

// Whether NVML saw another process with work on `device` while doctor measured.
bool shared_with_others(const Machine& machine, int device);

}  // namespace ferry::doctor
