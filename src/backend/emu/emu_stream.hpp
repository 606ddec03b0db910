#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/backend.hpp"
#include "core/clock.hpp"

namespace ferry::emu {

using Operation = std::function<void()>;

class EmuGraph final : public Graph {
 public:
  EmuGraph(std::vector<Operation> operations, std::vector<std::size_t> copies)
      : operations_(std::move(operations)), copies_(std::move(copies)) {}
  std::size_t operations() const override { return operations_.size(); }
  void retarget_copy(std::size_t index, void* destination, const void* source, std::size_t bytes) override;
  const std::vector<Operation>& list() const { return operations_; }

 private:
  std::vector<Operation> operations_;
  std::vector<std::size_t> copies_;  // which operations are copies, in capture order
};

// Records are numbered; a wait or synchronize waits for the number that was
// latest when it was issued, as CUDA's cudaStreamWaitEvent does.
class EmuEvent final : public Event {
 public:
  std::uint64_t issue_record();
  void complete(std::uint64_t generation);
  void wait_for(std::uint64_t generation) const;
  std::uint64_t latest_issued() const;

  void synchronize() override { wait_for(latest_issued()); }
  double seconds_since(const Event& start) const override;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable completed_cv_;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
  HostClock::time_point when_{};
};

class EmuStream final : public Stream {
 public:
  explicit EmuStream(int device);
  ~EmuStream() override;

  BackendKind backend_kind() const override { return BackendKind::emu; }
  int device() const override { return device_; }
  void* native_handle() const override { return nullptr; }

  void copy(void* destination, const void* source, std::size_t bytes) override;
  void fill(void* destination, std::uint8_t byte, std::size_t bytes) override;
  void enqueue_host(std::function<void()> work) override;
  void record(Event& event) override;
  void wait(const Event& event) override;
  void synchronize() override;
  void write_flag(std::uint64_t* flag, std::uint64_t value) override;
  void wait_flag(const std::uint64_t* flag, std::uint64_t value, double timeout_s) override;
  void begin_capture(CaptureMode mode) override;
  std::unique_ptr<Graph> end_capture() override;
  void replay(const Graph& graph) override;

 private:
  void submit(Operation operation);
  void run_queue();

  int device_;
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::deque<Operation> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::exception_ptr failure_;
  bool capturing_ = false;
  std::vector<Operation> captured_;
  std::vector<std::size_t> captured_copies_;
  std::thread worker_;
};

}  // namespace ferry::emu
