#pragma once
// Device-to-device transports: how a message gets from one device's memory
// into another's. beff (and topo) are written against this interface alone;
// CUDA peer copies, kernels on peer memory, NCCL and MPI live behind it, one
// file each. A transport is opened on a group of participants (devices, each
// with a send area and a receive area of message slots), runs the exchanges
// of a plan, and is closed when it goes.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "transport/exchange_plan.hpp"
#include "transport/world.hpp"

namespace ferry::transport {

enum class Kind {
  p2p_ce,          // peer copies by the copy engine: one process driving every device, or a rank per device (CUDA IPC)
  p2p_sm,          // kernels store into the peer's memory and raise a flag that the peer's kernel polls; either layout
  nccl,            // ncclSend/ncclRecv, a group per exchange issued from the host: how most applications call NCCL
  nccl_graph,      // the same calls, every exchange of a measurement captured once as a CUDA graph and replayed
  nccl_graph_reg,  // nccl_graph on areas from ncclMemAlloc, registered with the communicator (ncclCommRegister)
  host_staged,  // device -> pinned host, memcpy between host buffers, host -> device; one process driving every device
  mpi_staged,   // device -> pinned host, MPI_Sendrecv between hosts, host -> device
  mpi_cuda,     // MPI_Sendrecv on device memory, where the MPI library is CUDA-aware
};

const std::vector<Kind>& all_kinds();
// Every way ferry runs NCCL, each over one rank per GPU under mpirun or every device of one process.
inline bool is_nccl(Kind kind) {
  return kind == Kind::nccl || kind == Kind::nccl_graph || kind == Kind::nccl_graph_reg;
}
// The NCCL variant with the highest figure (b_eff, a peak: higher is better) among `figures`, or nullopt when
// no NCCL variant is there: what "vs best NCCL" compares with, so that a peer is judged at its best.
std::optional<Kind> best_nccl(const std::vector<std::pair<Kind, double>>& figures);
// host-staged and mpi-staged: every message stops in host memory on its way.
inline bool through_host(Kind kind) { return kind == Kind::host_staged || kind == Kind::mpi_staged; }
std::string_view to_string(Kind kind);
// "all", or names separated by commas. Throws UsageError naming an unknown one.
std::vector<Kind> parse_kinds(std::string_view text);

// What a transport's seconds are: device intervals (events) or the host's steady clock.
enum class Clock { device, host };

// Where a transport's send and receive areas come from: the backend's device
// memory; device memory other processes of the host can map (a rank per
// device: p2p-ce and p2p-sm reach their peers' areas through CUDA IPC); or
// NCCL's allocator (ncclMemAlloc), whose memory NCCL can register for
// zero-copy transfers between GPUs.
enum class AreaMemory { device, shared, nccl };
// The areas a run's transports share: under mpirun memory other ranks can map, which p2p-ce and p2p-sm need and
// the others take alike, so that one set of areas serves them all; in one process the backend's device memory.
AreaMemory run_area_memory(const World& world);
// nccl-graph-reg's areas are NCCL's; every other transport's, run_area_memory.
AreaMemory area_memory(Kind kind, const World& world);
// A device this process drives, and its place among the participants.
struct Participant {
  int index = 0;  // 0 .. participants - 1, around the ring
  int device = 0;
  std::byte* send = nullptr;     // device memory: slots of the messages it sends
  std::byte* receive = nullptr;  // device memory: slots it receives into
  // AreaMemory::shared: the receive area as another process maps it (Backend::export_shared); else empty.
  std::vector<std::uint8_t> receive_handle;
};

struct Group {
  int participants = 0;            // in the whole run, every rank's
  std::vector<Participant> local;  // those this process drives
  std::uint64_t area_bytes = 0;    // each send and receive area
  std::uint64_t largest_message = 0;
  int routes = 1;                          // the most routes a plan on it takes: fully-connected's participants - 1
  AreaMemory memory = AreaMemory::device;  // where the areas came from
};

struct Options {
  enum class SmProtocol { automatic, ll, direct } sm_protocol = SmProtocol::automatic;
  int sm_teams = 0;       // p2p-sm: the most teams (thread blocks) a device moves one direct message with; 0: by size
  double timeout_s = 30;  // the longest any wait for a peer may last
};

// p2p-sm's protocol for a message size under `automatic`: LL up to this size.
// On 2 x H200 (NVLink4), LL moved 355 GB/s for the ring at 512 KiB against
// direct's 253, and direct won from 1 MiB (377 against 354).
constexpr std::uint64_t sm_ll_largest_bytes = 512 << 10;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual Kind kind() const = 0;
  virtual Clock clock() const = 0;
  // How it moves a message of this size, in a few words, for the results.
  virtual std::string how(std::uint64_t bytes) const = 0;
  // Runs every exchange of the plan, the local participants all starting at
  // once (across ranks, the caller's barrier comes first). Returns each local
  // participant's seconds, in Group::local's order. The areas hold what the
  // plan's messages need; their contents are the caller's to fill and check.
  // A fully-connected plan's routes all run at once.
  virtual std::vector<double> run(const ExchangePlan& plan) = 0;
  // What run(plan) must do once before the plan's first exchange can start (capturing its exchanges as a graph),
  // done here so that it stays out of the timed part and ahead of the caller's barrier: a rank still capturing
  // while its peer's timed exchanges start would add its capture to the peer's time. run() does it when not asked.
  // Every rank calls it with the same plan at the same point, as NCCL may connect peers while capturing.
  virtual void prepare(const ExchangePlan&) {}
};

// An area of `bytes` on `device` from `memory`; throws RuntimeFailure where that memory is not to be had.
Buffer allocate_area(AreaMemory memory, Backend& backend, int device, std::uint64_t bytes);

// Why a transport cannot run on this group here (a skipped row's reason), or "".
// Every rank gets the same answer.
std::string unavailable_reason(Kind kind, Backend& backend, const World& world, const Group& group);

// The host -> host step of host-staged (in one process) or mpi-staged (across
// ranks) alone: `repetitions` timings of `messages` messages of `bytes` at once
// in one process (one a rank across ranks), every rank taking part; empty
// seconds when a copy did not arrive intact.
struct HostStepTime {
  std::string how;
  std::vector<double> seconds;
};
HostStepTime time_host_step(Backend& backend, World& world, std::uint64_t bytes, int messages, int repetitions);

// unavailable_reason() agreed across ranks: "" when every rank can run it;
// otherwise, on rank 0, the reason (naming the rank where they differ), and on
// the other ranks a placeholder. Every rank must call it.
std::string unavailable_anywhere(Kind kind, Backend& backend, const World& world, const Group& group);

// Opens a transport that unavailable_reason() said can run.
std::unique_ptr<Transport> open(Kind kind, Backend& backend, World& world, const Group& group, const Options& options);

}  // namespace ferry::transport
