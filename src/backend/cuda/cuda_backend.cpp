#include "backend/cuda/cuda_backend.hpp"

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <set>
#include <utility>

#include "backend/cuda/cuda_clusters.hpp"
#include "backend/cuda/cuda_stream.hpp"
#include "backend/cuda/nvml_facts.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry::cuda {

std::string unavailable_reason() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();  // the failure is the answer, not a sticky error
    return fmt::format("no usable GPU ({}: {})", cudaGetErrorName(error), cudaGetErrorString(error));
  }
  if (count == 0) return "no CUDA device found";
  return "";
}

namespace {

std::string version_text(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

// nvidia-smi's spelling: "GPU-" and the 16 bytes in hex, grouped 4-2-2-2-6.
std::string uuid_text(const cudaUUID_t& uuid) {
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return "GPU-" + hex;
}

class CudaBackend final : public Backend {
 public:
  CudaBackend() { FERRY_CUDA(cudaGetDeviceCount(&devices_)); }

  BackendKind kind() const override { return BackendKind::cuda; }
  std::string name() const override { return "cuda"; }
  Capabilities capabilities() const override {
    return {.gpu_timings = true, .graphs = true, .multi_stream_graphs = true, .mapped_memory = true};
  }
  int device_count() const override { return devices_; }

  DeviceStatus device_status(int device) const override {
    check_device(device);
    use_device(device);
    std::size_t free = 0, total = 0;
    FERRY_CUDA(cudaMemGetInfo(&free, &total));
    return {.free_bytes = free, .total_bytes = total};
  }

  DeviceFeatures device_features(int device) const override {
    check_device(device);
    int major = 0, cooperative = 0, shared_optin = 0;
    FERRY_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    FERRY_CUDA(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    FERRY_CUDA(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return {.programmatic_launch = major >= 9,
            .all_teams_at_once = cooperative != 0,
            .team_shared_bytes = static_cast<std::size_t>(shared_optin),
            .cluster_teams = largest_cluster_on(device)};
  }

  Machine describe_machine() const override {
    Machine m;
    m.host = read_host_facts();
    m.backend = "cuda";
    m.gpu_timings = true;
    int driver = 0, runtime = 0;
    FERRY_CUDA(cudaDriverGetVersion(&driver));
    FERRY_CUDA(cudaRuntimeGetVersion(&runtime));
    m.driver_version = "CUDA " + version_text(driver);
    m.runtime_version = "CUDA " + version_text(runtime);
    for (int d = 0; d < devices_; ++d) {
      cudaDeviceProp p{};
      FERRY_CUDA(cudaGetDeviceProperties(&p, d));
      int memory_clock_kHz = 0, bus_bits = 0;
      FERRY_CUDA(cudaDeviceGetAttribute(&memory_clock_kHz, cudaDevAttrMemoryClockRate, d));
      FERRY_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, d));
      char bus_id[32] = {};
      FERRY_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, d));
      GpuFacts g;
      g.index = d;
      g.name = p.name;
      g.pci_bus_id = bus_id;
      g.uuid = uuid_text(p.uuid);
      g.memory_bytes = p.totalGlobalMem;
      g.multiprocessors = p.multiProcessorCount;
      g.compute_capability = fmt::format("{}.{}", p.major, p.minor);
      // Double data rate: two transfers per clock over the whole bus.
      g.memory_bandwidth_Bps = 2.0 * memory_clock_kHz * 1e3 * bus_bits / 8.0;
      m.gpus.push_back(g);
    }
    for (int a = 0; a < devices_; ++a) {
      for (int b = 0; b < devices_; ++b) {
        if (a == b) continue;
        int can = 0;
        FERRY_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
        m.peers.push_back({.from = a, .to = b, .direct_access = can != 0});
      }
    }
    add_link_facts(m);
    return m;
  }

  Buffer allocate_device(int device, std::size_t bytes) override {
    require_free_memory(*this, device, bytes);
    void* p = nullptr;
    FERRY_CUDA(cudaMalloc(&p, bytes));
    return Buffer(p, p, bytes, MemoryKind::device, device, [device](void* q) {
      use_device(device);
      cudaFree(q);
    });
  }

  Buffer allocate_host(MemoryKind kind, std::size_t bytes) override {
    if (kind == MemoryKind::pageable) {
      constexpr std::size_t page = 4096;
      void* p = std::aligned_alloc(page, (bytes + page - 1) / page * page);
      if (!p) throw RuntimeFailure(fmt::format("cannot allocate {} of pageable host memory", format_bytes(bytes)));
      return Buffer(p, nullptr, bytes, kind, -1, [](void* q) { std::free(q); });
    }
    if (kind == MemoryKind::device) throw RuntimeFailure("allocate_host called for device memory");
    const unsigned flags = cudaHostAllocPortable | (kind == MemoryKind::mapped ? cudaHostAllocMapped : 0u);
    void* p = nullptr;
    const cudaError_t error = cudaHostAlloc(&p, bytes, flags);
    if (error != cudaSuccess) {
      cudaGetLastError();
      throw RuntimeFailure(fmt::format("cannot allocate {} of {} host memory: {}", format_bytes(bytes), to_string(kind),
                                       cudaGetErrorString(error)));
    }
    void* device_view = nullptr;
    if (kind == MemoryKind::mapped) FERRY_CUDA(cudaHostGetDevicePointer(&device_view, p, 0));
    return Buffer(p, device_view, bytes, kind, -1, [](void* q) { cudaFreeHost(q); });
  }

  std::unique_ptr<Stream> make_stream(int device) override {
    check_device(device);
    return std::make_unique<CudaStream>(device);
  }

  std::unique_ptr<Event> make_event(int device) override {
    check_device(device);
    return std::make_unique<CudaEvent>(device);
  }

  bool enable_peer_access(int device, int peer) override {
    check_device(device);
    check_device(peer);
    int can = 0;
    FERRY_CUDA(cudaDeviceCanAccessPeer(&can, device, peer));
    if (!can) return false;
    // Enabled once per pair: asking again fails with "already enabled", an
    // error compute-sanitizer reports whether or not it is handled.
    if (peers_enabled_.contains({device, peer})) return true;
    use_device(device);
    const cudaError_t error = cudaDeviceEnablePeerAccess(peer, 0);
    if (error == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // enabled by another library (NCCL)
    else FERRY_CUDA(error);
    peers_enabled_.insert({device, peer});
    return true;
  }

  // cudaMalloc's memory is what CUDA IPC exports.
  Buffer allocate_device_shared(int device, std::size_t bytes) override { return allocate_device(device, bytes); }

  std::vector<std::uint8_t> export_shared(const Buffer& buffer) override {
    use_device(buffer.device());
    SharedHandle handle{.bytes = buffer.bytes()};
    FERRY_CUDA(cudaIpcGetMemHandle(&handle.ipc, buffer.data()));
    std::vector<std::uint8_t> bytes(sizeof handle);
    std::memcpy(bytes.data(), &handle, sizeof handle);
    return bytes;
  }

  Buffer open_shared(int device, const std::vector<std::uint8_t>& bytes) override {
    check_device(device);
    SharedHandle handle;
    if (bytes.size() != sizeof handle) throw RuntimeFailure("open_shared was given a handle of the wrong size");
    std::memcpy(&handle, bytes.data(), sizeof handle);
    use_device(device);
    void* p = nullptr;
    FERRY_CUDA(cudaIpcOpenMemHandle(&p, handle.ipc, cudaIpcMemLazyEnablePeerAccess));
    return Buffer(p, p, handle.bytes, MemoryKind::device, device, [device](void* q) {
      use_device(device);
      cudaIpcCloseMemHandle(q);
    });
  }

 private:
  struct SharedHandle {
    cudaIpcMemHandle_t ipc{};
    std::uint64_t bytes = 0;
  };

  void check_device(int device) const {
    if (device < 0 || device >= devices_)
      throw UsageError(fmt::format("device {} does not exist: the cuda backend sees {} device{} (0..{})", device,
                                   devices_, devices_ == 1 ? "" : "s", devices_ - 1));
  }

  int devices_ = 0;
  std::set<std::pair<int, int>> peers_enabled_;  // (device, peer): device may access peer's memory
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace ferry::cuda
