#pragma once
// The CPU emulator: the Backend interface on host threads. Device memory is
// host memory, a stream is a thread with an in-order queue, events are
// timestamps, a graph is a recorded list of operations. Its timings are CPU
// timings and say nothing about a GPU.
#include <atomic>
#include <map>
#include <mutex>
#include <vector>

#include "backend/backend.hpp"

namespace ferry::emu {

class EmuBackend final : public Backend {
 public:
  // Enough to exercise every peer and ring path on a laptop; FERRY_EMU_DEVICES (1 to 64) sets another count,
  // for rings of 8 devices and more.
  static constexpr int default_devices = 4;
  static constexpr int most_devices = 64;

  EmuBackend();
  BackendKind kind() const override { return BackendKind::emu; }
  std::string name() const override { return "emu"; }
  Capabilities capabilities() const override;
  int device_count() const override { return devices_; }
  DeviceStatus device_status(int device) const override;
  DeviceFeatures device_features(int device) const override;
  Machine describe_machine() const override;

  Buffer allocate_device(int device, std::size_t bytes) override;
  Buffer allocate_host(MemoryKind kind, std::size_t bytes) override;
  std::unique_ptr<Stream> make_stream(int device) override;
  std::unique_ptr<Event> make_event(int device) override;
  bool enable_peer_access(int device, int peer) override;
  Buffer allocate_device_shared(int device, std::size_t bytes) override;
  std::vector<std::uint8_t> export_shared(const Buffer& buffer) override;
  Buffer open_shared(int device, const std::vector<std::uint8_t>& handle) override;

 private:
  void check_device(int device) const;
  void reserve(int device, std::size_t bytes);

  int devices_;
  std::uint64_t capacity_bytes_;
  std::vector<std::atomic<std::uint64_t>> allocated_bytes_;
  std::mutex shared_mutex_;
  std::map<const void*, int> shared_files_;  // a shared allocation's address -> the file descriptor behind it
};

}  // namespace ferry::emu
