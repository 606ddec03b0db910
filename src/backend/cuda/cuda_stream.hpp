#pragma once
#include <exception>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_check.hpp"

namespace ferry::cuda {

class CudaEvent final : public Event {
 public:
  explicit CudaEvent(int device);
  ~CudaEvent() override;
  void synchronize() override;
  double seconds_since(const Event& start) const override;
  cudaEvent_t native() const { return event_; }

 private:
  int device_;
  cudaEvent_t event_ = nullptr;
};

class CudaGraph final : public Graph {
 public:
  ~CudaGraph() override;
  std::size_t operations() const override { return nodes_; }
  void retarget_copy(std::size_t index, void* destination, const void* source, std::size_t bytes) override;

 private:
  friend class CudaStream;
  void find_copies();

  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::size_t nodes_ = 0;
  std::vector<std::pair<void*, const void*>> captured_copies_;  // destination, source, in capture order
  bool copies_found_ = false;
  std::vector<cudaGraphNode_t> copies_;  // the copy nodes, in capture order
};

class CudaStream final : public Stream {
 public:
  explicit CudaStream(int device);
  ~CudaStream() override;

  BackendKind backend_kind() const override { return BackendKind::cuda; }
  int device() const override { return device_; }
  void* native_handle() const override { return stream_; }

  void copy(void* destination, const void* source, std::size_t bytes) override;
  void fill(void* destination, std::uint8_t byte, std::size_t bytes) override;
  void enqueue_host(std::function<void()> work) override;
  void record(Event& event) override;
  void wait(const Event& event) override;
  void synchronize() override;
  void write_flag(std::uint64_t* flag, std::uint64_t value) override;  // cuda_stream_flags.cpp
  void wait_flag(const std::uint64_t* flag, std::uint64_t value, double timeout_s) override;
  void begin_capture(CaptureMode mode) override;
  std::unique_ptr<Graph> end_capture() override;
  void replay(const Graph& graph) override;

 private:
  static void run_host_work(void* work);

  int device_;
  std::exception_ptr host_failure_;  // from a host function, rethrown by synchronize
  bool capturing_ = false;
  std::vector<std::pair<void*, const void*>> captured_copies_;  // destination, source
  cudaStream_t stream_ = nullptr;
};

}  // namespace ferry::cuda
