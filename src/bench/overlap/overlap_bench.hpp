#pragma once
// The vector add's buffers and the three ways to run it, each timed from the
// host and checked word by word.
#include <memory>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/measure.hpp"
#include "bench/overlap/overlap.hpp"
#include "bench/overlap/overlap_split.hpp"
#include "core/trace.hpp"

namespace ferry::overlap {

class OverlapBench {
 public:
  OverlapBench(Backend& backend, const OverlapConfig& config);

  // Seconds to add the vectors on device-resident data (events), for the model.
  Measurement kernel_alone();
  Measurement cpu();
  Measurement serial();
  Measurement pipelined(const Split& split);
  // One more pipelined run with an event around every copy and add.
  Trace trace(const Split& split);

 private:
  std::uint64_t wrong_words() const;  // words of host c that are not a + b, as the check "overlap.sum" reports them
  // The check after each timed sample of `row` (a name from row_names): host c is a + b. The test
  // hook first changes one word of the row's first sample, when config.corrupt_row names the row.
  std::function<bool()> sum_check(std::string_view row);
  // Poison every buffer the result passes through, so each run must move every byte.
  void poison_outputs(Stream& stream);
  // A chain's events, when traced: before H2D a, then after each of its four steps.
  static constexpr std::size_t chain_marks = 5;
  void enqueue_chain(Stream& stream, const SubBuffer& part, Event* const* marks = nullptr);
  void enqueue_pipelined(Stream& main, const Split& split, Event* const* marks = nullptr);
  std::size_t streams_for(const Split& split) const;
  Measurement timed(std::string_view row, const std::function<void(Stream&)>& enqueue);

  Backend& backend_;
  const OverlapConfig& config_;
  Buffer host_a_, host_b_, host_c_;
  Buffer a_, b_, c_;
  std::unique_ptr<Stream> main_;
  std::vector<std::unique_ptr<Stream>> pool_;
  std::unique_ptr<Event> go_;
  std::vector<std::unique_ptr<Event>> finished_;  // one per pool stream
};

}  // namespace ferry::overlap
