// p2p-ce with a rank per device: each message is one peer copy by the sender's copy engine into the
// receiver's memory, mapped here through CUDA IPC, as in one process. Events do not cross processes, so the
// order that one process carries by events is carried by flags in the receiver's memory: after each copy the
// sender stores its exchange's number + 1 into the receiver's flag for that route (write_flag), and the
// receiver's streams wait for that number (wait_flag) before its next exchange, as MPI_Sendrecv would
// return. A rank captures its own streams as one graph where the backend can: issuing a copy costs the host
// microseconds, more than a small copy takes.
#include <array>

#include "transport/rank_memory.hpp"
#include "transport/transports.hpp"

namespace ferry::transport {
namespace {

// Words from one route's flag to the next: a 128-byte line each, so that senders never share one.
constexpr std::size_t flag_stride = 16;
enum SharedBuffer { receive_area = 0, flag_words = 1 };

class PeerCopyEngineAcrossRanks final : public Transport {
 public:
  PeerCopyEngineAcrossRanks(Backend& backend, World& world, const Group& group, const Options& options)
      : me_(group.local.front()), timeout_s_(options.timeout_s), graphs_(backend.capabilities().multi_stream_graphs) {
    const std::size_t words = static_cast<std::size_t>(group.routes) * flag_stride;
    flags_ = backend.allocate_device_shared(me_.device, words * sizeof(std::uint64_t));
    start_ = backend.make_event(me_.device);
    end_ = backend.make_event(me_.device);
    fork_ = backend.make_event(me_.device);
    for (int k = 0; k < group.routes; ++k) {
      routes_.push_back({backend.make_stream(me_.device), backend.make_event(me_.device)});
    }
    clear_flags();
    peers_ = map_every_rank(backend, world, me_.index, me_.device, {me_.receive_handle, backend.export_shared(flags_)});
  }

  Kind kind() const override { return Kind::p2p_ce; }
  Clock clock() const override { return Clock::device; }
  std::string how(std::uint64_t) const override {
    return graphs_ ? "copy engine, CUDA IPC, flags, graph" : "copy engine, CUDA IPC, flags";
  }

  void prepare(const ExchangePlan& plan) override {
    if (graphs_ && (!graph_ || plan != captured_)) capture(plan);
  }

  // The caller's barrier before each run is what makes clearing the flags at the end safe: every store into
  // this participant's flags was waited for before its run ended, and no peer starts the next run before it.
  std::vector<double> run(const ExchangePlan& plan) override {
    Stream& main = *routes_.front().stream;
    if (graphs_) {
      prepare(plan);
      main.record(*start_);
      main.replay(*graph_);
      main.record(*end_);
    } else {
      main.record(*start_);
      for (int k = 1; k < plan.fan(); ++k) routes_[k].stream->wait(*start_);
      enqueue_exchanges(plan);
      main.record(*end_);
    }
    main.synchronize();
    const double seconds = end_->seconds_since(*start_);
    clear_flags();
    return {seconds};
  }

 private:
  struct RouteLane {
    std::unique_ptr<Stream> stream;
    std::unique_ptr<Event> joined;  // this route's stream is done, for the first stream to wait on
  };

  void capture(const ExchangePlan& plan) {
    graph_.reset();
    Stream& main = *routes_.front().stream;
    main.begin_capture();
    main.record(*fork_);
    for (int k = 1; k < plan.fan(); ++k) routes_[k].stream->wait(*fork_);
    enqueue_exchanges(plan);
    graph_ = main.end_capture();
    captured_ = plan;
  }

  std::uint64_t* my_flag(int k) const { return flags_.as<std::uint64_t>() + static_cast<std::size_t>(k) * flag_stride; }
  std::uint64_t* flag_at(int participant, int k) const {
    return peers_[participant].buffers[flag_words].as<std::uint64_t>() + static_cast<std::size_t>(k) * flag_stride;
  }

  void clear_flags() {
    Stream& main = *routes_.front().stream;
    main.fill(flags_.data(), 0, flags_.bytes());
    main.synchronize();
  }

  // Every exchange of the plan, the first stream ending once the last messages to this participant arrived.
  void enqueue_exchanges(const ExchangePlan& plan) {
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      for (int k = 0; k < plan.fan(); ++k) {
        Stream& stream = *routes_[k].stream;
        if (i > 0) wait_for_arrivals(stream, plan, i - 1);
        const Route r = plan.route(me_.index, i, k);
        if (r.send_to < 0) continue;
        const std::uint64_t at = plan.offset(i, k);
        stream.copy(peers_[r.send_to].buffers[receive_area].data() + at, me_.send + at, plan.bytes);
        stream.write_flag(flag_at(r.send_to, k), static_cast<std::uint64_t>(i) + 1);
      }
    }
    Stream& main = *routes_.front().stream;
    wait_for_arrivals(main, plan, plan.exchanges() - 1);
    for (int k = 1; k < plan.fan(); ++k) {
      routes_[k].stream->record(*routes_[k].joined);
      main.wait(*routes_[k].joined);
    }
  }

  // `stream` waits until every message of exchange i to this participant has arrived.
  void wait_for_arrivals(Stream& stream, const ExchangePlan& plan, std::int64_t i) {
    for (int k = 0; k < plan.fan(); ++k)
      if (plan.route(me_.index, i, k).receive_from >= 0)
        stream.wait_flag(my_flag(k), static_cast<std::uint64_t>(i) + 1, timeout_s_);
  }

  const Participant me_;
  const double timeout_s_;
  const bool graphs_;
  Buffer flags_;  // flag k: how many exchanges reached this participant on route k (exchange i stores i + 1)
  std::vector<RouteLane> routes_;
  std::unique_ptr<Event> start_, end_, fork_;
  std::vector<RankMemory> peers_;  // every participant's receive area and flags, by participant
  std::unique_ptr<Graph> graph_;
  ExchangePlan captured_;
};

}  // namespace

std::unique_ptr<Transport> open_p2p_ce_across_ranks(Backend& backend, World& world, const Group& group,
                                                    const Options& options) {
  return std::make_unique<PeerCopyEngineAcrossRanks>(backend, world, group, options);
}

}  // namespace ferry::transport
