#include "backend/emu/emu_backend.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
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

int devices_from_environment() {
  const char* text = std::getenv("FERRY_EMU_DEVICES");
  if (!text || !*text) return EmuBackend::default_devices;
  char* end = nullptr;
  const long count = std::strtol(text, &end, 10);
  if (*end != '\0' || count < 1 || count > EmuBackend::most_devices)
    throw UsageError(fmt::format("FERRY_EMU_DEVICES='{}': give the emulator's device count, 1 to {}", text,
                                 EmuBackend::most_devices));
  return static_cast<int>(count);
}

// What another process needs to map a shared allocation: the owner's process and the descriptor of the
// anonymous file behind it, reached through /proc/PID/fd/FD.
struct SharedHandle {
  std::int32_t pid = 0;
  std::int32_t fd = -1;
  std::uint64_t bytes = 0;
};

std::string errno_text() { return std::strerror(errno); }
}  // namespace

EmuBackend::EmuBackend() : devices_(devices_from_environment()), allocated_bytes_(static_cast<std::size_t>(devices_)) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  // Each emulated device may take half the host's memory: the host needs the rest for its own buffers.
  capacity_bytes_ = pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * page_size / 2 : (1ull << 32);
}

Capabilities EmuBackend::capabilities() const {
  return {.gpu_timings = false, .graphs = true, .mapped_memory = true, .host_reaches_device_memory = true};
}

void EmuBackend::check_device(int device) const {
  if (device < 0 || device >= devices_)
    throw UsageError(fmt::format("device {} does not exist: the emu backend has {} devices (0..{})", device, devices_,
                                 devices_ - 1));
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
  for (int d = 0; d < devices_; ++d) {
    GpuFacts g;
    g.index = d;
    g.name = "ferry CPU emulator";
    g.uuid = fmt::format("EMU-{}-{}", m.host.hostname, d);
    g.memory_bytes = capacity_bytes_;
    g.multiprocessors = 1;
    m.gpus.push_back(g);
  }
  for (int a = 0; a < devices_; ++a)
    for (int b = 0; b < devices_; ++b)
      if (a != b) m.peers.push_back({.from = a, .to = b, .direct_access = true});
  return m;
}

void EmuBackend::reserve(int device, std::size_t bytes) {
  check_device(device);
  const DeviceStatus status = device_status(device);
  if (bytes > status.free_bytes)
    throw UsageError(fmt::format("{} is more than emu device {} has free ({})", format_bytes(bytes), device,
                                 format_capacity(status.free_bytes)));
  allocated_bytes_[device] += bytes;
}

Buffer EmuBackend::allocate_device(int device, std::size_t bytes) {
  reserve(device, bytes);
  void* p = nullptr;
  try {
    p = allocate_aligned(bytes, "device");
  } catch (...) {
    allocated_bytes_[device] -= bytes;
    throw;
  }
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

// An anonymous file (memfd) mapped shared: another process maps the same pages, as CUDA IPC maps a GPU's.
Buffer EmuBackend::allocate_device_shared(int device, std::size_t bytes) {
  reserve(device, bytes);
  const std::size_t rounded = std::max<std::size_t>(alignment, (bytes + alignment - 1) / alignment * alignment);
  const int fd = memfd_create("ferry-emu-device", MFD_CLOEXEC);
  void* p = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, static_cast<off_t>(rounded)) == 0)
    p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const std::string why = errno_text();
    if (fd >= 0) close(fd);
    allocated_bytes_[device] -= bytes;
    throw RuntimeFailure(fmt::format("emu: cannot allocate {} of shared device memory: {}", format_bytes(bytes), why));
  }
  {
    std::lock_guard lock(shared_mutex_);
    shared_files_[p] = fd;
  }
  return Buffer(p, p, bytes, MemoryKind::device, device, [this, device, bytes, rounded](void* q) {
    int file = -1;
    {
      std::lock_guard lock(shared_mutex_);
      file = shared_files_.extract(q).mapped();
    }
    munmap(q, rounded);
    close(file);
    allocated_bytes_[device] -= bytes;
  });
}

std::vector<std::uint8_t> EmuBackend::export_shared(const Buffer& buffer) {
  SharedHandle handle{.pid = getpid(), .fd = -1, .bytes = buffer.bytes()};
  {
    std::lock_guard lock(shared_mutex_);
    const auto it = shared_files_.find(buffer.data());
    if (it == shared_files_.end())
      throw RuntimeFailure("emu: export_shared was given memory that allocate_device_shared did not hand out");
    handle.fd = it->second;
  }
  std::vector<std::uint8_t> bytes(sizeof handle);
  std::memcpy(bytes.data(), &handle, sizeof handle);
  return bytes;
}

Buffer EmuBackend::open_shared(int device, const std::vector<std::uint8_t>& bytes) {
  check_device(device);
  SharedHandle handle;
  if (bytes.size() != sizeof handle) throw RuntimeFailure("emu: open_shared was given a handle of the wrong size");
  std::memcpy(&handle, bytes.data(), sizeof handle);
  const std::string path = fmt::format("/proc/{}/fd/{}", handle.pid, handle.fd);
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    throw RuntimeFailure(
        fmt::format("emu: cannot open process {}'s shared device memory ({}): {}", handle.pid, path, errno_text()));
  const std::size_t rounded = std::max<std::size_t>(alignment, (handle.bytes + alignment - 1) / alignment * alignment);
  void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const std::string why = errno_text();
  close(fd);  // the mapping keeps the pages
  if (p == MAP_FAILED)
    throw RuntimeFailure(fmt::format("emu: cannot map process {}'s shared device memory: {}", handle.pid, why));
  return Buffer(p, p, handle.bytes, MemoryKind::device, device, [rounded](void* q) { munmap(q, rounded); });
}

}  // namespace ferry::emu
