#pragma once
// The emulator behind hooks that tests of a check or a figure turn into a fault: a copy that does nothing,
// a kernel that takes a known time. Everything else is the emulator's own.
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backend/emu/emu_backend.hpp"

namespace ferry {

class HookedEmu : public Backend {
 public:
  BackendKind kind() const override { return emu_.kind(); }
  std::string name() const override { return emu_.name(); }
  Capabilities capabilities() const override { return emu_.capabilities(); }
  int device_count() const override { return emu_.device_count(); }
  DeviceStatus device_status(int device) const override { return emu_.device_status(device); }
  DeviceFeatures device_features(int device) const override { return emu_.device_features(device); }
  Machine describe_machine() const override { return emu_.describe_machine(); }
  Buffer allocate_device(int device, std::size_t bytes) override {
    return allocated(emu_.allocate_device(device, bytes));
  }
  Buffer allocate_host(MemoryKind kind, std::size_t bytes) override {
    return allocated(emu_.allocate_host(kind, bytes));
  }
  std::unique_ptr<Stream> make_stream(int device) override;
  std::unique_ptr<Event> make_event(int device) override { return emu_.make_event(device); }
  bool enable_peer_access(int device, int peer) override { return emu_.enable_peer_access(device, peer); }
  Buffer allocate_device_shared(int device, std::size_t bytes) override {
    return allocated(emu_.allocate_device_shared(device, bytes));
  }
  std::vector<std::uint8_t> export_shared(const Buffer& buffer) override { return emu_.export_shared(buffer); }
  Buffer open_shared(int device, const std::vector<std::uint8_t>& handle) override {
    return emu_.open_shared(device, handle);
  }

  // Whether a stream's copy into `destination`, outside a capture, runs (a captured one always does).
  virtual bool copy_lands(const void* /*destination*/) { return true; }
  // A stream's host work (each of the emulator's kernels is one), as it runs.
  virtual std::function<void()> kernel(std::function<void()> work) { return work; }
  // Runs on the host after a stream's synchronize has seen its work done, before it returns.
  virtual void synchronized() {}

 protected:
  // Every buffer, as the emulator allocated it, before the caller has it.
  virtual Buffer allocated(Buffer buffer) { return buffer; }

 private:
  emu::EmuBackend emu_;
};

class HookedEmuStream final : public Stream {
 public:
  HookedEmuStream(std::unique_ptr<Stream> emu, HookedEmu& backend) : emu_(std::move(emu)), backend_(backend) {}

  BackendKind backend_kind() const override { return emu_->backend_kind(); }
  int device() const override { return emu_->device(); }
  void* native_handle() const override { return emu_->native_handle(); }
  void copy(void* destination, const void* source, std::size_t bytes) override {
    if (capturing_ || backend_.copy_lands(destination)) emu_->copy(destination, source, bytes);
  }
  void fill(void* destination, std::uint8_t byte, std::size_t bytes) override { emu_->fill(destination, byte, bytes); }
  void enqueue_host(std::function<void()> work) override { emu_->enqueue_host(backend_.kernel(std::move(work))); }
  void record(Event& event) override { emu_->record(event); }
  void wait(const Event& event) override { emu_->wait(event); }
  void write_flag(std::uint64_t* flag, std::uint64_t value) override { emu_->write_flag(flag, value); }
  void wait_flag(const std::uint64_t* flag, std::uint64_t value, double timeout_s) override {
    emu_->wait_flag(flag, value, timeout_s);
  }
  void synchronize() override {
    emu_->synchronize();
    backend_.synchronized();
  }
  void begin_capture(CaptureMode mode) override {
    emu_->begin_capture(mode);
    capturing_ = true;
  }
  std::unique_ptr<Graph> end_capture() override {
    capturing_ = false;
    return emu_->end_capture();
  }
  void replay(const Graph& graph) override { emu_->replay(graph); }

 private:
  std::unique_ptr<Stream> emu_;
  HookedEmu& backend_;
  bool capturing_ = false;
};

inline std::unique_ptr<Stream> HookedEmu::make_stream(int device) {
  return std::make_unique<HookedEmuStream>(emu_.make_stream(device), *this);
}

// A stream copy into a buffer that `covers` (by its kind and size) lands only the first time it reaches
// its destination address: every later copy there does nothing. Copies into other buffers (the checker's
// counts, the chains' answers) and copies captured into a graph land as ever.
class CopiesLandOnce final : public HookedEmu {
 public:
  explicit CopiesLandOnce(std::function<bool(MemoryKind, std::size_t)> covers) : covers_(std::move(covers)) {}

  bool copy_lands(const void* destination) override {
    std::lock_guard lock(mutex_);
    const auto* at = static_cast<const std::byte*>(destination);
    for (const Covered& c : covered_)
      if (at >= c.begin && at < c.end) return written_.insert(at).second;
    return true;
  }

 private:
  struct Covered {
    const std::byte* begin;
    const std::byte* end;
  };

  // The emulator's buffer, handed on with a release that first forgets it: a later buffer at the same
  // address is a new destination.
  Buffer allocated(Buffer inner) override {
    if (!covers_(inner.kind(), inner.bytes())) return inner;
    const Covered range{inner.data(), inner.data() + inner.bytes()};
    {
      std::lock_guard lock(mutex_);
      covered_.push_back(range);
    }
    void* data = inner.data();
    void* device_view = inner.device_view_as<void>();
    const std::size_t bytes = inner.bytes();
    const MemoryKind kind = inner.kind();
    const int device = inner.device();
    auto owned = std::make_shared<Buffer>(std::move(inner));
    return Buffer(data, device_view, bytes, kind, device, [this, range, owned](void*) {
      std::lock_guard lock(mutex_);
      std::erase_if(covered_, [&](const Covered& c) { return c.begin == range.begin; });
      std::erase_if(written_, [&](const std::byte* at) { return at >= range.begin && at < range.end; });
    });
  }

  std::function<bool(MemoryKind, std::size_t)> covers_;
  std::mutex mutex_;
  std::vector<Covered> covered_;
  std::set<const std::byte*> written_;
};

// Every kernel takes at least `each` before its work: a sample of n kernels back to back takes at least n
// times that, however fast the machine.
class KernelsTakeAtLeast final : public HookedEmu {
 public:
  explicit KernelsTakeAtLeast(std::chrono::microseconds each) : each_(each) {}

  std::function<void()> kernel(std::function<void()> work) override {
    return [each = each_, work = std::move(work)] {
      std::this_thread::sleep_for(each);
      work();
    };
  }

 private:
  std::chrono::microseconds each_;
};

}  // namespace ferry
