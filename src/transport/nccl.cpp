// nccl, nccl-graph and nccl-graph-reg: one communicator over every
// participant, each exchange one group of ncclSend/ncclRecv calls (every local
// device's in one group, as NCCL asks of a process that drives several).
// Bootstrapped over MPI under mpirun, so it spans nodes unchanged; in one
// process every device joins from this one.
// - nccl issues each exchange's group from the host as it is timed, as most
//   applications call NCCL: the host's cost per group is in the figure.
// - nccl-graph captures a measurement's exchanges once, a graph per device
//   (prepare(), untimed), and replays them, as nccl-tests -G does.
// - nccl-graph-reg does the same on areas from ncclMemAlloc registered with
//   the communicator (ncclCommRegister: local registration), which lets NCCL
//   move large messages between GPUs' buffers directly instead of through
//   its own. Window registration (2.27+) serves NCCL's symmetric collectives,
//   not send/recv, so it is not used here.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "transport/transports.hpp"

#if FERRY_WITH_NCCL
#include "backend/cuda/cuda_check.hpp"
#include "transport/nccl_calls.hpp"
#include "transport/nccl_library.hpp"
#include "transport/plan_graphs.hpp"
#endif

namespace ferry::transport {

#if FERRY_WITH_NCCL
namespace {

std::string version_text(int version) {
  return fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
}

class Nccl final : public Transport {
 public:
  Nccl(Kind kind, Backend& backend, World& world, const Group& group)
      : kind_(kind), group_(group), nccl_(NcclLibrary::get()) {
    if (kind_ == Kind::nccl_graph_reg && group.memory != AreaMemory::nccl)
      throw RuntimeFailure("nccl-graph-reg was given areas that did not come from ncclMemAlloc (see area_memory)");
    ncclUniqueId id{};
    std::vector<std::uint8_t> bytes(sizeof id);
    if (world.rank() == 0) {
      FERRY_NCCL(nccl_.get_unique_id(&id));
      std::memcpy(bytes.data(), &id, sizeof id);
    }
    world.broadcast(bytes);
    std::memcpy(&id, bytes.data(), sizeof id);
    for (const Participant& p : group.local) {
      Lane lane;
      lane.stream = backend.make_stream(p.device);
      lane.start = backend.make_event(p.device);
      lane.end = backend.make_event(p.device);
      streams_.push_back(lane.stream.get());
      lanes_.push_back(std::move(lane));
    }
    // Every local device joins in one group, or the first would wait for the others forever.
    FERRY_NCCL(nccl_.group_start());
    for (std::size_t k = 0; k < group.local.size(); ++k) {
      cuda::use_device(group.local[k].device);
      FERRY_NCCL(nccl_.comm_init_rank(&lanes_[k].comm, group.participants, id, group.local[k].index));
    }
    FERRY_NCCL(nccl_.group_end());
    if (kind_ == Kind::nccl_graph_reg) register_areas();
    connect_peers();
  }

  ~Nccl() override {
    graphs_ = PlanGraphs{};  // a graph may hold NCCL's registrations: it goes before them
    for (Lane& lane : lanes_) {
      for (void* handle : lane.registered)
        if (handle) nccl_.comm_deregister(lane.comm, handle);
      if (lane.comm) nccl_.comm_destroy(lane.comm);
    }
  }

  Kind kind() const override { return kind_; }
  Clock clock() const override { return Clock::device; }
  std::string how(std::uint64_t) const override {
    const std::string calls = fmt::format("ncclSend/Recv {}", version_text(nccl_.version));
    if (kind_ == Kind::nccl) return calls + ", a group per exchange from the host";
    if (kind_ == Kind::nccl_graph) return calls + ", CUDA graph replay";
    return calls + ", CUDA graph replay, ncclMemAlloc areas registered";
  }

  void prepare(const ExchangePlan& plan) override {
    if (kind_ == Kind::nccl) return;
    // Relaxed: NCCL's calls for one device, made while another device's stream of this thread captures, were
    // refused in thread-local mode ("operation not permitted when stream is capturing"), and the capture hung
    // (NCCL 2.28.3, one process driving 2 x H200); one rank per GPU captured either way.
    graphs_.prepare(
        plan, streams_, [&](const ExchangePlan& p) { enqueue_exchanges(p); }, CaptureMode::relaxed);
  }

  std::vector<double> run(const ExchangePlan& plan) override {
    prepare(plan);
    if (kind_ == Kind::nccl) {
      for (Lane& lane : lanes_) lane.stream->record(*lane.start);
      enqueue_exchanges(plan);
      for (Lane& lane : lanes_) lane.stream->record(*lane.end);
    } else {
      // Each device's interval starts as its own graph is launched.
      for (std::size_t l = 0; l < lanes_.size(); ++l) {
        lanes_[l].stream->record(*lanes_[l].start);
        graphs_.replay(l, *lanes_[l].stream);
        lanes_[l].stream->record(*lanes_[l].end);
      }
    }
    std::vector<double> seconds;
    for (Lane& lane : lanes_) {
      lane.stream->synchronize();
      seconds.push_back(lane.end->seconds_since(*lane.start));
    }
    return seconds;
  }

 private:
  struct Lane {
    std::unique_ptr<Stream> stream;
    std::unique_ptr<Event> start, end;
    ncclComm_t comm = nullptr;
    std::vector<void*> registered;  // NCCL's handles of the send and receive areas
  };

  void register_areas() {
    for (std::size_t k = 0; k < lanes_.size(); ++k) {
      const Participant& p = group_.local[k];
      cuda::use_device(p.device);
      for (std::byte* area : {p.send, p.receive}) {
        void* handle = nullptr;
        FERRY_NCCL(nccl_.comm_register(lanes_[k].comm, area, group_.area_bytes, &handle));
        lanes_[k].registered.push_back(handle);
      }
    }
  }

  // NCCL connects two ranks (allocating buffers, sharing registered ones with the peer) on their first exchange.
  // Every pair meets here, once, so that this stays out of any capture and any timed exchange, as nccl-tests'
  // warm-up does: one fully-connected exchange of the largest message the areas hold, on the areas themselves,
  // whose contents are the caller's only once it fills them.
  void connect_peers() {
    const int fan = fan_of(Pattern::fully_connected, group_.participants);
    const std::uint64_t fits = group_.area_bytes / static_cast<std::uint64_t>(fan) / slot_alignment * slot_alignment;
    const std::uint64_t bytes = std::max<std::uint64_t>(1, std::min(group_.largest_message, fits));
    const ExchangePlan plan = make_plan(Pattern::fully_connected, group_.participants, bytes, 1, group_.area_bytes);
    for (std::size_t l = 0; l < lanes_.size(); ++l) lanes_[l].stream->fill(group_.local[l].send, 0, plan.pitch);
    enqueue_exchanges(plan);
    for (Lane& lane : lanes_) lane.stream->synchronize();
  }

  // Every exchange of the plan, each one group: every local device's sends and receives, on every route, run at once.
  void enqueue_exchanges(const ExchangePlan& plan) {
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      FERRY_NCCL(nccl_.group_start());
      for (std::size_t l = 0; l < lanes_.size(); ++l) {
        const Participant& p = group_.local[l];
        auto stream = static_cast<cudaStream_t>(lanes_[l].stream->native_handle());
        for (const NcclCall& call : nccl_calls(plan, p.index, i)) {
          if (call.op == NcclCall::Op::send)
            FERRY_NCCL(nccl_.send(p.send + call.offset, call.bytes, ncclUint8, call.peer, lanes_[l].comm, stream));
          else
            FERRY_NCCL(nccl_.recv(p.receive + call.offset, call.bytes, ncclUint8, call.peer, lanes_[l].comm, stream));
        }
      }
      FERRY_NCCL(nccl_.group_end());
    }
  }

  const Kind kind_;
  const Group group_;
  const NcclLibrary& nccl_;
  std::vector<Lane> lanes_;
  std::vector<Stream*> streams_;  // the lanes' streams, for PlanGraphs
  PlanGraphs graphs_;
};

// NCCL takes one GPU per rank: two ranks on one device end its setup with "invalid usage". Every rank learns it.
std::string shared_device(const World& world, const Group& group) {
  if (!world.distributed()) return "";
  const std::vector<std::string> places = world.gather(fmt::format("{}:{}", world.host(), group.local.front().device));
  std::string clash;
  for (std::size_t a = 0; a < places.size() && clash.empty(); ++a)
    for (std::size_t b = a + 1; b < places.size() && clash.empty(); ++b)
      if (places[a] == places[b]) clash = fmt::format("ranks {} and {} both use device {}", a, b, places[a]);
  std::vector<std::uint8_t> bytes(clash.begin(), clash.end());
  world.broadcast(bytes);
  if (bytes.empty()) return "";
  return "NCCL takes one GPU per rank, and " + std::string(bytes.begin(), bytes.end());
}

}  // namespace
#endif

std::string nccl_reason(Kind kind, Backend& backend, const World& world, const Group& group) {
#if FERRY_WITH_NCCL
  if (backend.kind() != BackendKind::cuda) return "NCCL runs on GPUs only: the emulator has no NCCL";
  const NcclLibrary& nccl = NcclLibrary::get();
  if (!nccl.missing.empty()) return nccl.missing;
  if (group.participants < 2) return "needs 2 devices (--devices 0,1) or 2 ranks (mpirun -np 2)";
  if (kind == Kind::nccl_graph_reg && !nccl.registration_missing.empty()) return nccl.registration_missing;
  return shared_device(world, group);
#else
  (void)kind, (void)backend, (void)world, (void)group;
  return "this ferry was built without NCCL (no CUDA backend, or no nccl.h at build time)";
#endif
}

std::unique_ptr<Transport> open_nccl(Kind kind, Backend& backend, World& world, const Group& group) {
#if FERRY_WITH_NCCL
  return std::make_unique<Nccl>(kind, backend, world, group);
#else
  (void)kind, (void)backend, (void)world, (void)group;
  throw RuntimeFailure("this ferry was built without NCCL");
#endif
}

Buffer allocate_nccl_area(int device, std::uint64_t bytes) {
#if FERRY_WITH_NCCL
  const NcclLibrary& nccl = NcclLibrary::get();
  if (!nccl.missing.empty()) throw RuntimeFailure(nccl.missing);
  if (!nccl.registration_missing.empty()) throw RuntimeFailure(nccl.registration_missing);
  cuda::use_device(device);
  void* data = nullptr;
  FERRY_NCCL(nccl.mem_alloc(&data, bytes));
  return Buffer(data, data, bytes, MemoryKind::device, device, [device](void* p) {
    cuda::use_device(device);
    NcclLibrary::get().mem_free(p);
  });
#else
  (void)device, (void)bytes;
  throw RuntimeFailure("this ferry was built without NCCL: no ncclMemAlloc");
#endif
}

}  // namespace ferry::transport
