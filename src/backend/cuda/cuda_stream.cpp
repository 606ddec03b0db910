#include "backend/cuda/cuda_stream.hpp"

#include <fmt/format.h>

#include <utility>

#include "core/error.hpp"

namespace ferry::cuda {

void throw_cuda_error(cudaError_t error, const char* call, const char* file, int line) {
  throw RuntimeFailure(fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(error),
                                   cudaGetErrorString(error), call, file, line));
}

void use_device(int device) {
  thread_local int current = -1;
  if (current != device) {
    FERRY_CUDA(cudaSetDevice(device));
    current = device;
  }
}

CudaEvent::CudaEvent(int device) : device_(device) {
  use_device(device);
  FERRY_CUDA(cudaEventCreate(&event_));
}

CudaEvent::~CudaEvent() { cudaEventDestroy(event_); }

void CudaEvent::synchronize() { FERRY_CUDA(cudaEventSynchronize(event_)); }

double CudaEvent::seconds_since(const Event& start) const {
  float ms = 0;
  FERRY_CUDA(cudaEventElapsedTime(&ms, dynamic_cast<const CudaEvent&>(start).event_, event_));
  return ms * 1e-3;
}

CudaGraph::~CudaGraph() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
}

CudaStream::CudaStream(int device) : device_(device) {
  use_device(device);
  FERRY_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

CudaStream::~CudaStream() { cudaStreamDestroy(stream_); }

void CudaGraph::retarget_copy(std::size_t index, void* destination, const void* source, std::size_t bytes) {
  if (!copies_found_) find_copies();
  if (index >= copies_.size())
    throw RuntimeFailure(fmt::format("the graph has {} copies, so no copy {}", copies_.size(), index));
  FERRY_CUDA(cudaGraphExecMemcpyNodeSetParams1D(exec_, copies_[index], destination, source, bytes, cudaMemcpyDefault));
}

void CudaStream::copy(void* destination, const void* source, std::size_t bytes) {
  use_device(device_);
  if (capturing_) captured_copies_.emplace_back(destination, source);
  FERRY_CUDA(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream_));
}

void CudaStream::fill(void* destination, std::uint8_t byte, std::size_t bytes) {
  use_device(device_);
  FERRY_CUDA(cudaMemsetAsync(destination, byte, bytes, stream_));
}

namespace {
struct HostWork {
  std::function<void()> work;
  std::exception_ptr* failure;
};
}  // namespace

void CudaStream::run_host_work(void* p) {
  std::unique_ptr<HostWork> item(static_cast<HostWork*>(p));
  try {
    item->work();
  } catch (...) {
    *item->failure = std::current_exception();
  }
}

void CudaStream::enqueue_host(std::function<void()> work) {
  use_device(device_);
  auto* item = new HostWork{std::move(work), &host_failure_};
  const cudaError_t error = cudaLaunchHostFunc(stream_, &CudaStream::run_host_work, item);
  if (error != cudaSuccess) delete item;
  FERRY_CUDA(error);
}

void CudaStream::record(Event& event) {
  use_device(device_);
  FERRY_CUDA(cudaEventRecord(dynamic_cast<CudaEvent&>(event).native(), stream_));
}

void CudaStream::wait(const Event& event) {
  use_device(device_);
  FERRY_CUDA(cudaStreamWaitEvent(stream_, dynamic_cast<const CudaEvent&>(event).native(), 0));
}

void CudaStream::synchronize() {
  FERRY_CUDA(cudaStreamSynchronize(stream_));
  if (host_failure_) std::rethrow_exception(std::exchange(host_failure_, nullptr));
}

void CudaStream::begin_capture(CaptureMode mode) {
  use_device(device_);
  FERRY_CUDA(cudaStreamBeginCapture(stream_, mode == CaptureMode::relaxed ? cudaStreamCaptureModeRelaxed
                                                                          : cudaStreamCaptureModeThreadLocal));
  capturing_ = true;
  captured_copies_.clear();
}

std::unique_ptr<Graph> CudaStream::end_capture() {
  auto graph = std::make_unique<CudaGraph>();
  capturing_ = false;
  FERRY_CUDA(cudaStreamEndCapture(stream_, &graph->graph_));
  FERRY_CUDA(cudaGraphGetNodes(graph->graph_, nullptr, &graph->nodes_));
  graph->captured_copies_ = std::exchange(captured_copies_, {});
  FERRY_CUDA(cudaGraphInstantiate(&graph->exec_, graph->graph_, 0));
  FERRY_CUDA(cudaGraphUpload(graph->exec_, stream_));
  return graph;
}

// Found when a copy is first retargeted, not at capture: the runtime cannot name the type of every node a
// capture makes (cudaGraphNodeGetType of a stream memory operation's node fails with cudaErrorUnknown), and
// only the graphs that are retargeted need their copies found.
void CudaGraph::find_copies() {
  // The graph does not keep capture order; each copy node is found by the
  // memory it was captured with.
  std::vector<cudaGraphNode_t> nodes(nodes_);
  FERRY_CUDA(cudaGraphGetNodes(graph_, nodes.data(), &nodes_));
  for (const auto& [destination, source] : captured_copies_) {
    for (cudaGraphNode_t& node : nodes) {
      if (node == nullptr) continue;
      cudaGraphNodeType type{};
      FERRY_CUDA(cudaGraphNodeGetType(node, &type));
      if (type != cudaGraphNodeTypeMemcpy) continue;
      cudaMemcpy3DParms params{};
      FERRY_CUDA(cudaGraphMemcpyNodeGetParams(node, &params));
      if (params.dstPtr.ptr != destination || params.srcPtr.ptr != source) continue;
      copies_.push_back(node);
      node = nullptr;  // taken: a second copy between the same buffers is the next such node
      break;
    }
  }
  copies_found_ = true;
}

void CudaStream::replay(const Graph& graph) {
  use_device(device_);
  FERRY_CUDA(cudaGraphLaunch(dynamic_cast<const CudaGraph&>(graph).exec_, stream_));
}

}  // namespace ferry::cuda
