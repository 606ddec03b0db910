#include "backend/emu/emu_backend.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fmt/format.h>

#include "backend/emu/emu_stream.hpp"
#include "backend/launch.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry::emu {

namespace {
constexpr std::size_t alignment = 4096;

void* allocate_aligned(std::size_t bytes, std::string_view what) {
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded);
  if (!p) throw RuntimeFailure(fmt::format("emu: cannot allocate {} of {} memory", format_bytes(bytes), what));
  return p;
}
}  // namespace

EmuBackend::EmuBackend() : allocated_bytes_(devices) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  // Each emulated device may take half the host's memory: the host needs the rest for its own buffers.
  capacity_bytes_ = pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * page_size / 2 : (1ull << 32);
}

Capabilities EmuBackend::capabilities() const {
  return {.gpu_timings = false, .graphs = true, .mapped_memory = true, .host_reaches_device_memory = true};
}

void EmuBackend::check_device(int device) const {
  if (device < 0 || device >= devices)
    throw UsageError(
        fmt::format("device {} does not exist: the emu backend has {} devices (0..{})", device, devices, devices - 1));
}

DeviceStatus EmuBackend::device_status(int device) const {
  check_device(device);
  const std::uint64_t used = allocated_bytes_[device].load();
  return {.free_bytes = capacity_bytes_ > used ? capacity_bytes_ - used : 0, .total_bytes = capacity_bytes_};
}

DeviceFeatures EmuBackend::device_features(int device) const {
  check_device(device);
  // Teams are host threads, so all run at once. A team's on-chip memory is
  // heap memory, offered in Hopper's amount so that a workload takes the same
  // on-chip paths here as on an H100. Stream order on the emulator is always
  // complete, so there is nothing programmatic to launch early. A cluster's
  // teams are threads that share their heap memory.
  return {.programmatic_launch = false,
          .all_teams_at_once = true,
          .team_shared_bytes = 227 << 10,
          .cluster_teams = emulated_cluster_teams};
}

Machine EmuBackend::describe_machine() const {
  Machine m;
  m.host = read_host_facts();
  m.backend = "emu";
  m.gpu_timings = false;
  for (int d = 0; d < devices; ++d) {
    GpuFacts g;
    g.index = d;
    g.name = "ferry CPU emulator";
    g.memory_bytes = capacity_bytes_;
    g.multiprocessors = 1;
    m.gpus.push_back(g);
  }
  for (int a = 0; a < devices; ++a)
    for (int b = 0; b < devices; ++b)
      if (a != b) m.peers.push_back({.from = a, .to = b, .direct_access = true});
  return m;
}

Buffer EmuBackend::allocate_device(int device, std::size_t bytes) {
  check_device(device);
  const DeviceStatus status = device_status(device);
  if (bytes > status.free_bytes)
    throw UsageError(fmt::format("{} is more than emu device {} has free ({})", format_bytes(bytes), device,
                                 format_bytes(status.free_bytes)));
  void* p = allocate_aligned(bytes, "device");
  allocated_bytes_[device] += bytes;
  return Buffer(p, p, bytes, MemoryKind::device, device, [this, device, bytes](void* q) {
    allocated_bytes_[device] -= bytes;
    std::free(q);
  });
}

Buffer EmuBackend::allocate_host(MemoryKind kind, std::size_t bytes) {
  if (kind == MemoryKind::device) throw RuntimeFailure("allocate_host called for device memory");
  void* p = allocate_aligned(bytes, "host");
  void* device_view = kind == MemoryKind::mapped ? p : nullptr;
  return Buffer(p, device_view, bytes, kind, -1, [](void* q) { std::free(q); });
}

std::unique_ptr<Stream> EmuBackend::make_stream(int device) {
  check_device(device);
  return std::make_unique<EmuStream>(device);
}

std::unique_ptr<Event> EmuBackend::make_event(int device) {
  check_device(device);
  return std::make_unique<EmuEvent>();
}

bool EmuBackend::enable_peer_access(int device, int peer) {
  check_device(device);
  check_device(peer);
  return true;  // one address space
}

}  // namespace ferry::emu
