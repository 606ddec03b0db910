// p2p-ce: each message is one peer copy by the sender's copy engine, straight
// into the receiver's memory. A participant starts exchange i + 1 only once
// the message of exchange i has reached it, as MPI_Sendrecv would return: an
// event per sender and exchange parity carries that from stream to stream.
// Issuing a copy costs the host microseconds, more than a small copy takes,
// so where the backend can, the whole plan is captured once as a graph across
// the devices and replayed: what is timed is then the copy engines.
#include <array>

#include "transport/transports.hpp"

namespace ferry::transport {
namespace {

class PeerCopyEngine final : public Transport {
 public:
  PeerCopyEngine(Backend& backend, const Group& group)
      : group_(group), graphs_(backend.capabilities().multi_stream_graphs) {
    fork_ = backend.make_event(group.local.front().device);
    for (const Participant& p : group.local) {
      Lane lane;
      lane.stream = backend.make_stream(p.device);
      lane.start = backend.make_event(p.device);
      lane.end = backend.make_event(p.device);
      for (auto& e : lane.delivered) e = backend.make_event(p.device);
      lanes_.push_back(std::move(lane));
    }
  }

  Kind kind() const override { return Kind::p2p_ce; }
  Clock clock() const override { return Clock::device; }
  std::string how(std::uint64_t) const override { return graphs_ ? "copy engine, graph" : "copy engine"; }

  std::vector<double> run(const ExchangePlan& plan) override {
    const int n = static_cast<int>(lanes_.size());
    if (graphs_) {
      if (!graph_ || !same_plan(plan, captured_)) capture(plan);
      Lane& first = lanes_.front();
      first.stream->record(*first.start);
      first.stream->replay(*graph_);
      first.stream->record(*first.end);
      first.stream->synchronize();
      // One graph spans every device: each participant's time is the graph's.
      return std::vector<double>(n, first.end->seconds_since(*first.start));
    }
    for (Lane& lane : lanes_) lane.stream->record(*lane.start);
    enqueue_exchanges(plan);
    std::vector<double> seconds(n);
    for (int p = 0; p < n; ++p) lanes_[p].stream->record(*lanes_[p].end);
    for (int p = 0; p < n; ++p) {
      lanes_[p].stream->synchronize();
      seconds[p] = lanes_[p].end->seconds_since(*lanes_[p].start);
    }
    return seconds;
  }

 private:
  struct Lane {
    std::unique_ptr<Stream> stream;
    std::unique_ptr<Event> start, end;
    std::array<std::unique_ptr<Event>, 2> delivered;
  };

  static bool same_plan(const ExchangePlan& a, const ExchangePlan& b) {
    return a.pattern == b.pattern && a.participants == b.participants && a.bytes == b.bytes && a.pitch == b.pitch &&
           a.slots.exchanges == b.slots.exchanges && a.slots.slots == b.slots.slots;
  }

  // The first lane's capture forks into the others by an event and joins them back at the end.
  void capture(const ExchangePlan& plan) {
    graph_.reset();
    Lane& first = lanes_.front();
    first.stream->begin_capture();
    first.stream->record(*fork_);
    for (std::size_t p = 1; p < lanes_.size(); ++p) lanes_[p].stream->wait(*fork_);
    enqueue_exchanges(plan);
    for (std::size_t p = 1; p < lanes_.size(); ++p) {
      lanes_[p].stream->record(*lanes_[p].end);
      first.stream->wait(*lanes_[p].end);
    }
    graph_ = first.stream->end_capture();
    captured_ = plan;
  }

  // Every exchange of the plan, each stream ending once the last message to it has arrived.
  void enqueue_exchanges(const ExchangePlan& plan) {
    const int n = static_cast<int>(lanes_.size());
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      for (int p = 0; p < n; ++p) {
        Lane& lane = lanes_[p];
        if (i > 0) wait_for_arrival(lane, plan, p, i - 1);
        const Route r = plan.route(p, i);
        if (r.send_to < 0) continue;
        const std::uint64_t at = plan.offset(i);
        lane.stream->copy(group_.local[r.send_to].receive + at, group_.local[p].send + at, plan.bytes);
        // Two events per sender, by exchange parity: a wait issued for exchange i - 1
        // still finds its record while exchange i's is being issued.
        lane.stream->record(*lane.delivered[i % 2]);
      }
    }
    for (int p = 0; p < n; ++p) wait_for_arrival(lanes_[p], plan, p, plan.exchanges() - 1);
  }

  // Participant p's stream waits until exchange i's message to it has arrived.
  void wait_for_arrival(Lane& lane, const ExchangePlan& plan, int p, std::int64_t i) {
    const int from = plan.route(p, i).receive_from;
    if (from >= 0) lane.stream->wait(*lanes_[from].delivered[i % 2]);
  }

  const Group group_;
  const bool graphs_;
  std::vector<Lane> lanes_;
  std::unique_ptr<Event> fork_;
  std::unique_ptr<Graph> graph_;
  ExchangePlan captured_;
};

}  // namespace

std::unique_ptr<Transport> open_p2p_ce(Backend& backend, const Group& group) {
  return std::make_unique<PeerCopyEngine>(backend, group);
}

}  // namespace ferry::transport
