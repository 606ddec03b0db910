// p2p-ce: each message is one peer copy by the sender's copy engine, straight
// into the receiver's memory. A participant starts exchange i + 1 only once
// the messages of exchange i have reached it, as MPI_Sendrecv would return: an
// event per sender, route and exchange parity carries that from stream to
// stream. Each route of a participant has a stream of its own, so the routes
// of a fully-connected exchange run at once. Issuing a copy costs the host
// microseconds, more than a small copy takes, so where the backend can, the
// whole plan is captured once as a graph across the devices and replayed:
// what is timed is then the copy engines.
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
      lane.start = backend.make_event(p.device);
      lane.end = backend.make_event(p.device);
      for (int k = 0; k < group.routes; ++k) {
        RouteLane route;
        route.stream = backend.make_stream(p.device);
        route.joined = backend.make_event(p.device);
        for (auto& e : route.delivered) e = backend.make_event(p.device);
        lane.routes.push_back(std::move(route));
      }
      lanes_.push_back(std::move(lane));
    }
  }

  Kind kind() const override { return Kind::p2p_ce; }
  Clock clock() const override { return Clock::device; }
  std::string how(std::uint64_t) const override { return graphs_ ? "copy engine, graph" : "copy engine"; }

  void prepare(const ExchangePlan& plan) override {
    if (graphs_ && (!graph_ || plan != captured_)) capture(plan);
  }

  std::vector<double> run(const ExchangePlan& plan) override {
    const int n = static_cast<int>(lanes_.size());
    if (graphs_) {
      prepare(plan);
      Lane& first = lanes_.front();
      Stream& origin = *first.routes.front().stream;
      origin.record(*first.start);
      origin.replay(*graph_);
      origin.record(*first.end);
      origin.synchronize();
      // One graph spans every device: each participant's time is the graph's.
      return std::vector<double>(n, first.end->seconds_since(*first.start));
    }
    for (Lane& lane : lanes_) {
      lane.main().record(*lane.start);
      for (int k = 1; k < plan.fan(); ++k) lane.routes[k].stream->wait(*lane.start);
    }
    enqueue_exchanges(plan);
    for (Lane& lane : lanes_) {
      join_routes(lane, plan.fan());
      lane.main().record(*lane.end);
    }
    std::vector<double> seconds(n);
    for (int p = 0; p < n; ++p) {
      lanes_[p].main().synchronize();
      seconds[p] = lanes_[p].end->seconds_since(*lanes_[p].start);
    }
    return seconds;
  }

 private:
  struct RouteLane {
    std::unique_ptr<Stream> stream;
    std::unique_ptr<Event> joined;  // this route's stream is done, for the participant's first stream to wait on
    std::array<std::unique_ptr<Event>, 2> delivered;
  };
  struct Lane {
    std::unique_ptr<Event> start, end;
    std::vector<RouteLane> routes;
    Stream& main() { return *routes.front().stream; }
  };

  // The first lane's first stream forks into every other stream by an event and joins them back at the end.
  void capture(const ExchangePlan& plan) {
    graph_.reset();
    Stream& origin = lanes_.front().main();
    origin.begin_capture();
    origin.record(*fork_);
    for (std::size_t p = 0; p < lanes_.size(); ++p)
      for (int k = 0; k < plan.fan(); ++k)
        if (p > 0 || k > 0) lanes_[p].routes[k].stream->wait(*fork_);
    enqueue_exchanges(plan);
    for (std::size_t p = 0; p < lanes_.size(); ++p) {
      join_routes(lanes_[p], plan.fan());
      if (p == 0) continue;
      lanes_[p].main().record(*lanes_[p].routes.front().joined);
      origin.wait(*lanes_[p].routes.front().joined);
    }
    graph_ = origin.end_capture();
    captured_ = plan;
  }

  void join_routes(Lane& lane, int fan) {
    for (int k = 1; k < fan; ++k) {
      lane.routes[k].stream->record(*lane.routes[k].joined);
      lane.main().wait(*lane.routes[k].joined);
    }
  }

  // Every exchange of the plan, each participant's first stream ending once the last messages to it have arrived.
  void enqueue_exchanges(const ExchangePlan& plan) {
    const int n = static_cast<int>(lanes_.size());
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      for (int p = 0; p < n; ++p) {
        for (int k = 0; k < plan.fan(); ++k) {
          RouteLane& route = lanes_[p].routes[k];
          if (i > 0) wait_for_arrivals(*route.stream, plan, p, i - 1);
          const Route r = plan.route(p, i, k);
          if (r.send_to < 0) continue;
          const std::uint64_t at = plan.offset(i, k);
          route.stream->copy(group_.local[r.send_to].receive + at, group_.local[p].send + at, plan.bytes);
          // Two events per sender and route, by exchange parity: a wait issued for exchange
          // i - 1 still finds its record while exchange i's is being issued.
          route.stream->record(*route.delivered[i % 2]);
        }
      }
    }
    for (int p = 0; p < n; ++p) wait_for_arrivals(lanes_[p].main(), plan, p, plan.exchanges() - 1);
  }

  // `stream` waits until every message of exchange i to participant p has arrived.
  void wait_for_arrivals(Stream& stream, const ExchangePlan& plan, int p, std::int64_t i) {
    for (int k = 0; k < plan.fan(); ++k) {
      const int from = plan.route(p, i, k).receive_from;
      if (from >= 0) stream.wait(*lanes_[from].routes[k].delivered[i % 2]);
    }
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
