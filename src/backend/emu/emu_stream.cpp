#include "backend/emu/emu_stream.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <utility>

#include "core/error.hpp"

namespace ferry::emu {

std::uint64_t EmuEvent::issue_record() {
  std::lock_guard lock(mutex_);
  return ++issued_;
}

void EmuEvent::complete(std::uint64_t generation) {
  // Notified under the lock: a waiter that sees the generation may destroy the
  // event at once (as cudaEventDestroy after a sync may), so the condition
  // variable must not be touched after the lock is released (found by TSan).
  std::lock_guard lock(mutex_);
  when_ = HostClock::now();
  completed_ = std::max(completed_, generation);
  completed_cv_.notify_all();
}

void EmuEvent::wait_for(std::uint64_t generation) const {
  std::unique_lock lock(mutex_);
  completed_cv_.wait(lock, [&] { return completed_ >= generation; });
}

std::uint64_t EmuEvent::latest_issued() const {
  std::lock_guard lock(mutex_);
  return issued_;
}

double EmuEvent::seconds_since(const Event& start) const {
  const auto& begin = dynamic_cast<const EmuEvent&>(start);
  std::scoped_lock lock(mutex_, begin.mutex_);
  if (completed_ == 0 || begin.completed_ == 0) throw RuntimeFailure("emu: timing an event that never completed");
  return seconds_between(begin.when_, when_);
}

EmuStream::EmuStream(int device) : device_(device), worker_([this] { run_queue(); }) {}

EmuStream::~EmuStream() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  worker_.join();
}

void EmuStream::run_queue() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to do
    Operation operation = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    try {
      operation();
    } catch (...) {
      lock.lock();
      if (!failure_) failure_ = std::current_exception();
      lock.unlock();
    }
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

void EmuStream::submit(Operation operation) {
  {
    std::lock_guard lock(mutex_);
    if (capturing_) {
      captured_.push_back(std::move(operation));
      return;
    }
    queue_.push_back(std::move(operation));
  }
  work_cv_.notify_one();
}

namespace {
Operation copy_operation(void* destination, const void* source, std::size_t bytes) {
  return [=] { std::memcpy(destination, source, bytes); };
}
}  // namespace

void EmuGraph::retarget_copy(std::size_t index, void* destination, const void* source, std::size_t bytes) {
  if (index >= copies_.size())
    throw RuntimeFailure(fmt::format("emu: the graph has {} copies, so no copy {}", copies_.size(), index));
  operations_[copies_[index]] = copy_operation(destination, source, bytes);
}

void EmuStream::copy(void* destination, const void* source, std::size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    if (capturing_) captured_copies_.push_back(captured_.size());
  }
  submit(copy_operation(destination, source, bytes));
}

void EmuStream::fill(void* destination, std::uint8_t byte, std::size_t bytes) {
  submit([=] { std::memset(destination, byte, bytes); });
}

void EmuStream::enqueue_host(std::function<void()> work) { submit(std::move(work)); }

void EmuStream::record(Event& event) {
  auto& e = dynamic_cast<EmuEvent&>(event);
  if (capturing_) throw RuntimeFailure("emu: an event cannot be recorded while a stream is captured");
  const std::uint64_t generation = e.issue_record();
  submit([&e, generation] { e.complete(generation); });
}

void EmuStream::wait(const Event& event) {
  const auto& e = dynamic_cast<const EmuEvent&>(event);
  if (capturing_) throw RuntimeFailure("emu: a stream cannot wait on an event while it is captured");
  const std::uint64_t generation = e.latest_issued();
  submit([&e, generation] { e.wait_for(generation); });
}

void EmuStream::synchronize() {
  std::unique_lock lock(mutex_);
  idle_cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

// The flag may live in another process's mapping of the same pages: atomics on it order the copies before it
// for that process too, as a GPU's release store does.
void EmuStream::write_flag(std::uint64_t* flag, std::uint64_t value) {
  submit([flag, value] { std::atomic_ref<std::uint64_t>(*flag).store(value, std::memory_order_release); });
}

void EmuStream::wait_flag(const std::uint64_t* flag, std::uint64_t value, double timeout_s) {
  const int device = device_;
  submit([flag, value, timeout_s, device] {
    const auto deadline = HostClock::now() + std::chrono::duration<double>(timeout_s);
    // const_cast: atomic_ref needs a non-const object; the flag is only read.
    std::atomic_ref<std::uint64_t> seen(*const_cast<std::uint64_t*>(flag));
    while (seen.load(std::memory_order_acquire) < value) {
      if (HostClock::now() > deadline)
        throw RuntimeFailure(fmt::format("emu: device {} waited more than {} s for a flag to reach {} (it holds {})",
                                         device, timeout_s, value, seen.load()));
      std::this_thread::yield();
    }
  });
}

void EmuStream::begin_capture(CaptureMode) {
  std::lock_guard lock(mutex_);
  if (capturing_) throw RuntimeFailure("emu: the stream is already being captured");
  capturing_ = true;
  captured_.clear();
  captured_copies_.clear();
}

std::unique_ptr<Graph> EmuStream::end_capture() {
  std::lock_guard lock(mutex_);
  if (!capturing_) throw RuntimeFailure("emu: end_capture without begin_capture");
  capturing_ = false;
  return std::make_unique<EmuGraph>(std::exchange(captured_, {}), std::exchange(captured_copies_, {}));
}

void EmuStream::replay(const Graph& graph) {
  const auto& g = dynamic_cast<const EmuGraph&>(graph);
  // One queue entry for the whole graph: like a graph launch, one submission.
  // It holds the operations as they are now, so a copy retargeted after this
  // call changes the next replay, not this one (as on CUDA).
  submit([operations = g.list()] {
    for (const Operation& op : operations) op();
  });
}

}  // namespace ferry::emu
