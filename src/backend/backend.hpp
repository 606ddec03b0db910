#pragma once
// The interface every workload is written against. Two implementations:
// backend/cuda (the product) and backend/emu (CPU threads, for correctness and
// for trying ferry without a GPU). What only one has is a Capability.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/buffer.hpp"
#include "core/machine.hpp"

namespace ferry {

enum class BackendKind { cuda, emu };

struct Capabilities {
  bool gpu_timings = false;  // events and clocks time a GPU (false: the emulator's CPU)
  bool graphs = false;       // capture a stream's work once and replay it
  bool multi_stream_graphs =
      false;  // a capture follows events into other streams, other devices' too (CUDA; not the emulator)
  bool mapped_memory = false;  // kernels reach mapped host memory
  bool host_reaches_device_memory =
      false;  // device memory is host memory (the emulator): the host and host libraries (MPI) read and write it
};

class Event;
class Graph;

// What a stream's capture lets the capturing thread do meanwhile (cudaStreamCaptureModeThreadLocal or Relaxed).
enum class CaptureMode { this_thread, relaxed };

// An in-order queue of work on one device.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual BackendKind backend_kind() const = 0;
  virtual int device() const = 0;
  virtual void* native_handle() const = 0;  // cudaStream_t on cuda, null on emu

  // Copies between any two buffers' memory (host or device, this device or a peer).
  virtual void copy(void* destination, const void* source, std::size_t bytes) = 0;
  // Sets bytes of device memory (to poison outputs before a run).
  virtual void fill(void* destination, std::uint8_t byte, std::size_t bytes) = 0;
  // Runs a host function in stream order. The emulator's kernels are such functions.
  virtual void enqueue_host(std::function<void()> work) = 0;

  virtual void record(Event& event) = 0;
  virtual void wait(const Event& event) = 0;  // later work waits for the event's latest record
  virtual void synchronize() = 0;

  // Flags in device memory, for order between processes, where events cannot reach: write_flag stores `value`
  // at `flag` (this device's memory or a peer's) once the work before it is done and visible; later work
  // waits until `*flag >= value`. A GPU's wait has no timeout of its own (the host's watchdog ends a run whose
  // peer is gone); the emulator's gives up after `timeout_s` and the stream's synchronize throws.
  virtual void write_flag(std::uint64_t* flag, std::uint64_t value) = 0;
  virtual void wait_flag(const std::uint64_t* flag, std::uint64_t value, double timeout_s) = 0;

  // Between begin and end, work is recorded instead of run; replay runs it.
  // `relaxed`: other work of this thread may run while the stream captures; a library that drives several
  // devices from one thread (NCCL) needs it. Otherwise, as the safer default, such work is refused.
  virtual void begin_capture(CaptureMode mode = CaptureMode::this_thread) = 0;
  virtual std::unique_ptr<Graph> end_capture() = 0;
  virtual void replay(const Graph& graph) = 0;
};

class Event {
 public:
  virtual ~Event() = default;
  virtual void synchronize() = 0;
  // Seconds between `start`'s completion and this event's; both must have completed.
  virtual double seconds_since(const Event& start) const = 0;
};

class Graph {
 public:
  virtual ~Graph() = default;
  virtual std::size_t operations() const = 0;
  // Points the graph's copy number `index` (in the order they were captured)
  // at other memory of the same kinds, for replays from now on: one graph
  // serves a stream of chunks without being captured again.
  virtual void retarget_copy(std::size_t index, void* destination, const void* source, std::size_t bytes) = 0;
};

// What one device can do with backend/launch.hpp's launch options.
struct DeviceFeatures {
  bool programmatic_launch =
      false;  // StreamOrder::programmatic lets a kernel launch while the one before drains (Hopper's PDL)
  bool all_teams_at_once =
      false;  // Residency::all_at_once launches, whose teams may wait for each other (team.grid_sync())
  std::size_t team_shared_bytes = 0;  // the most on-chip memory (team.shared()) one team may have
  // The most teams a Residency::one_cluster launch may have, whose teams reach
  // each other's on-chip memory (Hopper's thread-block clusters); 0: none.
  int cluster_teams = 0;
};

struct DeviceStatus {
  std::uint64_t free_bytes = 0;
  std::uint64_t total_bytes = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual std::string name() const = 0;
  virtual Capabilities capabilities() const = 0;
  virtual int device_count() const = 0;
  virtual DeviceStatus device_status(int device) const = 0;
  virtual DeviceFeatures device_features(int device) const = 0;
  // GPUs, links and driver, for the results' machine section.
  virtual Machine describe_machine() const = 0;

  virtual Buffer allocate_device(int device, std::size_t bytes) = 0;
  // Host memory of the given kind; mapped memory is reachable from every device.
  virtual Buffer allocate_host(MemoryKind kind, std::size_t bytes) = 0;

  virtual std::unique_ptr<Stream> make_stream(int device) = 0;
  virtual std::unique_ptr<Event> make_event(int device) = 0;

  // Lets `device` reach `peer`'s memory directly; false when the pair cannot, in
  // which case copies between them still work but go through the host.
  virtual bool enable_peer_access(int device, int peer) = 0;

  // Device memory that other processes of this host can map (CUDA IPC; on the emulator, shared memory):
  // export_shared describes it as bytes to send them, and open_shared maps such bytes, from another process,
  // into this one for `device` to reach. A buffer from open_shared unmaps when it goes; the memory stays its
  // owner's.
  virtual Buffer allocate_device_shared(int device, std::size_t bytes) = 0;
  virtual std::vector<std::uint8_t> export_shared(const Buffer& buffer) = 0;
  virtual Buffer open_shared(int device, const std::vector<std::uint8_t>& handle) = 0;
};

// Throws UsageError, naming the device and what it has, when `bytes` is more than `device` has free: before any
// allocation on a GPU, the backend's own or another library's (NCCL's).
void require_free_memory(const Backend& backend, int device, std::uint64_t bytes);

}  // namespace ferry
