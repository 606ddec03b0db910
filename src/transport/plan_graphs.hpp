#pragma once
// A plan's exchanges captured once, a graph per stream, and replayed: how
// nccl-tests -G runs NCCL, and how applications that launch the same
// communication every step keep the host's issuing cost out of it. A plan
// that differs from the one captured is captured anew; capturing is kept out
// of what is timed (Transport::prepare).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "backend/backend.hpp"
#include "transport/exchange_plan.hpp"

namespace ferry::transport {

class PlanGraphs {
 public:
  // Captures unless `plan` is the one held: every stream begins capturing, `enqueue` issues the plan's work on
  // them, every stream ends, and each stream's graph is kept. Work that throws leaves no stream capturing.
  void prepare(const ExchangePlan& plan, const std::vector<Stream*>& streams,
               const std::function<void(const ExchangePlan&)>& enqueue, CaptureMode mode = CaptureMode::this_thread);
  bool holds(const ExchangePlan& plan) const { return plan_ && *plan_ == plan; }
  // Launches the graph captured on streams[k] onto `stream`.
  void replay(std::size_t k, Stream& stream);

  int captures() const { return captures_; }
  std::int64_t replays() const { return replays_; }

 private:
  std::optional<ExchangePlan> plan_;
  std::vector<std::unique_ptr<Graph>> graphs_;
  int captures_ = 0;
  std::int64_t replays_ = 0;
};

}  // namespace ferry::transport
