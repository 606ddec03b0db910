// nccl: one communicator over every participant, each exchange one group of
// ncclSend/ncclRecv calls (every local device's in one group, as NCCL asks of
// a process that drives several). Bootstrapped over MPI under mpirun, so it
// spans nodes unchanged; in one process every device joins from this one.
// NCCL is opened at run time (dlopen), so ferry runs where it is missing and
// says so; only its header is needed to build.
#include <fmt/format.h>

#include <cstring>

#include "core/error.hpp"
#include "transport/transports.hpp"

#if FERRY_WITH_NCCL
#include <dlfcn.h>
#include <nccl.h>

#include "backend/cuda/cuda_check.hpp"
#endif

namespace ferry::transport {

#if FERRY_WITH_NCCL
namespace {

// The NCCL functions ferry calls, from the library found at run time.
struct NcclLibrary {
  std::string missing;  // why it could not be loaded; "" when it was
  int version = 0;
  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;

  static const NcclLibrary& get() {
    static const NcclLibrary library = load();
    return library;
  }

 private:
  static NcclLibrary load() {
    NcclLibrary l;
    void* handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) handle = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      l.missing = fmt::format("NCCL's library could not be loaded ({})", why ? why : "libnccl.so.2 not found");
      return l;
    }
    auto find = [&](auto& function, const char* name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
      if (!function && l.missing.empty()) l.missing = fmt::format("NCCL's library lacks {}", name);
    };
    find(l.get_version, "ncclGetVersion");
    find(l.get_unique_id, "ncclGetUniqueId");
    find(l.comm_init_rank, "ncclCommInitRank");
    find(l.comm_destroy, "ncclCommDestroy");
    find(l.group_start, "ncclGroupStart");
    find(l.group_end, "ncclGroupEnd");
    find(l.send, "ncclSend");
    find(l.recv, "ncclRecv");
    find(l.error_string, "ncclGetErrorString");
    if (l.missing.empty()) l.get_version(&l.version);
    return l;
  }
};

void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw RuntimeFailure(fmt::format("NCCL error {} ({}) in {} at {}:{}", static_cast<int>(result),
                                   NcclLibrary::get().error_string(result), call, file, line));
}

#define FERRY_NCCL(call) check_nccl((call), #call, __FILE__, __LINE__)

class Nccl final : public Transport {
 public:
  Nccl(Backend& backend, World& world, const Group& group) : group_(group), nccl_(NcclLibrary::get()) {
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
      lanes_.push_back(std::move(lane));
    }
    // Every local device joins in one group, or the first would wait for the others forever.
    FERRY_NCCL(nccl_.group_start());
    for (std::size_t k = 0; k < group.local.size(); ++k) {
      cuda::use_device(group.local[k].device);
      FERRY_NCCL(nccl_.comm_init_rank(&lanes_[k].comm, group.participants, id, group.local[k].index));
    }
    FERRY_NCCL(nccl_.group_end());
  }

  ~Nccl() override {
    for (Lane& lane : lanes_)
      if (lane.comm) nccl_.comm_destroy(lane.comm);
  }

  Kind kind() const override { return Kind::nccl; }
  Clock clock() const override { return Clock::device; }
  std::string how(std::uint64_t) const override { return fmt::format("ncclSend/Recv {}", nccl_.version); }

  std::vector<double> run(const ExchangePlan& plan) override {
    for (Lane& lane : lanes_) lane.stream->record(*lane.start);
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      // Every local device's sends and receives of the exchange, on every route, in one group: NCCL runs them at once.
      FERRY_NCCL(nccl_.group_start());
      for (std::size_t l = 0; l < lanes_.size(); ++l) {
        const Participant& p = group_.local[l];
        auto stream = static_cast<cudaStream_t>(lanes_[l].stream->native_handle());
        for (int k = 0; k < plan.fan(); ++k) {
          const Route route = plan.route(p.index, i, k);
          const std::uint64_t at = plan.offset(i, k);
          if (route.send_to >= 0)
            FERRY_NCCL(nccl_.send(p.send + at, plan.bytes, ncclUint8, route.send_to, lanes_[l].comm, stream));
          if (route.receive_from >= 0)
            FERRY_NCCL(nccl_.recv(p.receive + at, plan.bytes, ncclUint8, route.receive_from, lanes_[l].comm, stream));
        }
      }
      FERRY_NCCL(nccl_.group_end());
    }
    std::vector<double> seconds;
    for (Lane& lane : lanes_) lane.stream->record(*lane.end);
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
  };

  const Group group_;
  const NcclLibrary& nccl_;
  std::vector<Lane> lanes_;
};

}  // namespace
#endif

#if FERRY_WITH_NCCL
namespace {

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

std::string nccl_reason(Backend& backend, const World& world, const Group& group) {
#if FERRY_WITH_NCCL
  if (backend.kind() != BackendKind::cuda) return "NCCL runs on GPUs only: the emulator has no NCCL";
  if (!NcclLibrary::get().missing.empty()) return NcclLibrary::get().missing;
  if (group.participants < 2) return "needs 2 devices (--devices 0,1) or 2 ranks (mpirun -np 2)";
  return shared_device(world, group);
#else
  (void)backend, (void)world, (void)group;
  return "this ferry was built without NCCL (no CUDA backend, or no nccl.h at build time)";
#endif
}

std::unique_ptr<Transport> open_nccl(Backend& backend, World& world, const Group& group) {
#if FERRY_WITH_NCCL
  return std::make_unique<Nccl>(backend, world, group);
#else
  (void)backend, (void)world, (void)group;
  throw RuntimeFailure("this ferry was built without NCCL");
#endif
}

}  // namespace ferry::transport
