#pragma once
// The CPU emulator: the Backend interface on host threads. Device memory is
// host memory, a stream is a thread with an in-order queue, events are
// timestamps, a graph is a recorded list of operations. Its timings are CPU
// timings and say nothing about a GPU.
#include <atomic>
#include <mutex>
#include <vector>

#include "backend/backend.hpp"

namespace ferry::emu {

class EmuBackend final : public Backend {
 public:
  static constexpr int devices = 4;  // enough to exercise every peer and ring path on a laptop

  EmuBackend();
  BackendKind kind() const override { return BackendKind::emu; }
  std::string name() const override { return "emu"; }
  Capabilities capabilities() const override;
  int device_count() const override { return devices; }
  DeviceStatus device_status(int device) const override;
  DeviceFeatures device_features(int device) const override;
  Machine describe_machine() const override;

  Buffer allocate_device(int device, std::size_t bytes) override;
  Buffer allocate_host(MemoryKind kind, std::size_t bytes) override;
  std::unique_ptr<Stream> make_stream(int device) override;
  std::unique_ptr<Event> make_event(int device) override;
  bool enable_peer_access(int device, int peer) override;

 private:
  void check_device(int device) const;

  std::uint64_t capacity_bytes_;
  std::vector<std::atomic<std::uint64_t>> allocated_bytes_;
};

}  // namespace ferry::emu
