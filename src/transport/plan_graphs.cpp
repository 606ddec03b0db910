#include "transport/plan_graphs.hpp"

#include "core/error.hpp"

namespace ferry::transport {

void PlanGraphs::prepare(const ExchangePlan& plan, const std::vector<Stream*>& streams,
                         const std::function<void(const ExchangePlan&)>& enqueue, CaptureMode mode) {
  if (holds(plan)) return;
  plan_.reset();
  graphs_.clear();
  std::size_t begun = 0;
  try {
    for (; begun < streams.size(); ++begun) streams[begun]->begin_capture(mode);
    enqueue(plan);
  } catch (...) {
    // A stream left capturing would turn every later call on it into an error far from this one.
    for (std::size_t k = 0; k < begun; ++k) {
      try {
        streams[k]->end_capture();
      } catch (...) {  // the capture was invalid already: the first error is the one to report
      }
    }
    throw;
  }
  for (Stream* stream : streams) graphs_.push_back(stream->end_capture());
  plan_ = plan;
  ++captures_;
}

void PlanGraphs::replay(std::size_t k, Stream& stream) {
  if (k >= graphs_.size()) throw RuntimeFailure("a plan's graph was replayed before it was captured");
  stream.replay(*graphs_[k]);
  ++replays_;
}

}  // namespace ferry::transport
