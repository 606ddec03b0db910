#pragma once
// The test hook FERRY_FAULT_DOCTOR=CONDITION[,CONDITION...]: it changes what
// doctor's pass read and measured before it is judged, so that each diagnosis
// can be provoked on any machine, the emulator included (docs/doctor.md lists
// the conditions).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "doctor/facts.hpp"

namespace ferry::doctor {

inline constexpr const char* fault_variable = "FERRY_FAULT_DOCTOR";

// Applies every condition of `hook` to `in`. Throws UsageError naming a
// condition it does not know, or a malformed one (the message lists them).
void apply_fault(std::string_view hook, Inputs& in);

// A condition's number (a device, a rank): `what` names it in the UsageError
// for anything but a whole number >= 0.
int parse_hook_number(std::string_view text, std::string_view condition, std::string_view what);

// slow-launch=D and slow-graph=D, on any backend: every GPU's latencies become
// its model's reference (a GPU of a model with none, the emulator's included,
// is taken for the first reference's model), and GPU D's `figure` (launch +
// sync, or a kernel's share of a graph) twice it. Emulator rates are dropped,
// since the pass then counts as a GPU's and they are CPU timings; a GPU's are
// kept.
void provoke_slow_latency(Inputs& inputs, int device, double model::DeviceProfile::*figure);
void provoke_slow_launch(Inputs& inputs, int device);  // launch + sync

// The conditions of the NCCL check: nccl-slow=A-B and nccl-corrupt=A-B (apply_fault
// only checks them; the pass applies them to the pairs it measures). Others are ignored.
struct NcclFaults {
  std::vector<std::pair<int, int>> slow{};
  std::vector<std::pair<int, int>> corrupt{};
};
NcclFaults nccl_faults(std::string_view hook);
// Whether a condition's pair A-B names the pair of devices `first` and `second`, either way round.
bool names_pair(const std::pair<int, int>& named, int first, int second);

// nccl-slow=A-B: the pair's rates become the healthy 2 x H200 run's p2p-ce
// and 0.13x of it for NCCL (what it moved through host memory there with
// NCCL_P2P_DISABLE=1), timed as a GPU's, so the check WARNs end to end on the
// emulator too.
void provoke_slow_nccl(std::vector<NcclPair>& pairs, int first, int second);

// The conditions of fleet mode, under mpirun: slow-rank=R (rank R's figures at
// a quarter) and corrupt-pair=R (one byte changed in what rank R received,
// through MPI and through NCCL); -1 where not given.
struct FleetFaults {
  int slow_rank = -1;
  int corrupt_pair = -1;
  bool any() const { return slow_rank >= 0 || corrupt_pair >= 0; }
};
// Takes the fleet's conditions out of `hook`, leaving the others there for the pass.
FleetFaults take_fleet_faults(std::string& hook);

}  // namespace ferry::doctor
