// p2p-sm's host side: per device the inbox, flags and credits its peers
// write into, one kernel launch per plan on every device at once, and the
// failure word that says which team gave up waiting for what. With a rank per
// device, each rank maps its peers' receive areas, inboxes, flags and credits
// through CUDA IPC, and the kernels are the same.
#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "transport/p2p_sm_kernel.hpp"
#include "transport/rank_memory.hpp"
#include "transport/transports.hpp"

namespace ferry::transport {
namespace {

// Teams for one message: enough to keep many stores in flight, few enough
// that a small message is not spread so thin that each team moves a word.
constexpr std::uint64_t ll_lines_per_team = 256;  // a line per thread
constexpr int most_ll_teams = 128;
constexpr std::uint64_t direct_bytes_per_team = 32 << 10;
constexpr int most_direct_teams = 128;  // unless --sm-teams says otherwise
constexpr int flag_teams = 1024;        // teams the flags and credits are laid out for

class PeerStores final : public Transport {
 public:
  PeerStores(Backend& backend, World& world, const Group& group, const Options& options)
      : group_(group), options_(options) {
    const std::uint64_t ll_largest = options.sm_protocol == Options::SmProtocol::direct ? 0
                                     : options.sm_protocol == Options::SmProtocol::ll
                                         ? group.largest_message
                                         : std::min(sm_ll_largest_bytes, group.largest_message);
    ll_slot_words_ = 2 * std::max<std::uint64_t>(1, (ll_largest + 7) / 8);
    // A lane per participant and route: a fully-connected exchange's routes are separate launches that run at once.
    const bool shared = group.memory == AreaMemory::shared;  // a rank per device: the peers map these too
    for (const Participant& p : group.local) {
      std::vector<Lane> routes;
      for (int k = 0; k < group.routes; ++k) routes.push_back(make_lane(backend, p.device, ll_slot_words_, shared));
      lanes_.push_back(std::move(routes));
    }
    resident_teams_ = std::max(1, peer_store_resident_teams(*lanes_.front().front().stream));
    views_.resize(static_cast<std::size_t>(group.participants));
    for (std::size_t p = 0; p < group.local.size(); ++p) views_[group.local[p].index] = own_view(p);
    if (shared) map_other_ranks(backend, world);
  }

  Kind kind() const override { return Kind::p2p_sm; }
  Clock clock() const override { return Clock::device; }
  std::string how(std::uint64_t bytes) const override { return uses_ll(bytes) ? "LL" : "direct"; }

  std::vector<double> run(const ExchangePlan& plan) override {
    const bool ll = uses_ll(plan.bytes);
    const int fan = plan.fan();
    // The routes' launches share the device: each takes its part of what is resident at once.
    const int teams = teams_for(plan.bytes, ll, fan);
    const int n = static_cast<int>(lanes_.size());
    for (auto& routes : lanes_)
      for (Lane& lane : routes) *lane.failure.as<std::uint64_t>() = no_sm_failure;
    for (int p = 0; p < n; ++p) {
      Lane& first = lanes_[p].front();
      first.stream->record(*first.start);
      for (int k = 0; k < fan; ++k) {
        Lane& lane = lanes_[p][k];
        if (k > 0) lane.stream->wait(*first.start);
        launch_peer_store_exchange(*lane.stream, kernel_for(plan, p, k, ll), teams);
        lane.stream->record(*lane.end);
      }
    }
    std::vector<double> seconds(n);
    for (auto& routes : lanes_)
      for (int k = 0; k < fan; ++k) routes[k].stream->synchronize();
    for (int p = 0; p < n; ++p) {
      for (int k = 0; k < fan; ++k) {
        const std::uint64_t failure = load_acquire_system(lanes_[p][k].failure.as<std::uint64_t>());
        if (failure != no_sm_failure) throw RuntimeFailure(failure_text(plan, p, k, failure));
        // A participant is done when its last route is.
        seconds[p] = std::max(seconds[p], lanes_[p][k].end->seconds_since(*lanes_[p].front().start));
      }
    }
    next_tag_ += static_cast<std::uint64_t>(plan.exchanges());
    return seconds;
  }

 private:
  struct Lane {
    std::unique_ptr<Stream> stream;
    std::unique_ptr<Event> start, end;
    Buffer arrived, credit, inbox, failure;
  };
  // What a participant's peers reach of it, per route: its own memory, or another rank's mapped here.
  struct View {
    int device = -1;
    std::byte* receive = nullptr;
    std::vector<std::uint64_t*> arrived, credit, inbox;
  };

  static Lane make_lane(Backend& backend, int device, std::uint64_t ll_slot_words, bool shared) {
    Lane lane;
    lane.stream = backend.make_stream(device);
    lane.start = backend.make_event(device);
    lane.end = backend.make_event(device);
    const std::uint64_t flag_words = flag_teams * sm_flag_stride;
    const auto allocate = [&](std::uint64_t bytes) {
      return shared ? backend.allocate_device_shared(device, bytes) : backend.allocate_device(device, bytes);
    };
    lane.arrived = allocate(flag_words * sizeof(std::uint64_t));
    lane.credit = allocate(flag_words * sizeof(std::uint64_t));
    lane.inbox = allocate(sm_ll_depth * ll_slot_words * sizeof(std::uint64_t));
    lane.failure = backend.allocate_host(MemoryKind::mapped, sm_flag_stride * sizeof(std::uint64_t));
    // Tag 0 never comes: zeroed memory holds no message and no credit.
    for (Buffer* b : {&lane.arrived, &lane.credit, &lane.inbox}) lane.stream->fill(b->data(), 0, b->bytes());
    lane.stream->synchronize();
    return lane;
  }

  View own_view(std::size_t p) const {
    View v;
    v.device = group_.local[p].device;
    v.receive = group_.local[p].receive;
    for (const Lane& lane : lanes_[p]) {
      v.arrived.push_back(lane.arrived.as<std::uint64_t>());
      v.credit.push_back(lane.credit.as<std::uint64_t>());
      v.inbox.push_back(lane.inbox.as<std::uint64_t>());
    }
    return v;
  }

  // A rank per device: this rank's receive area and each route's flags, credits and inbox, to every other.
  void map_other_ranks(Backend& backend, World& world) {
    const Participant& me = group_.local.front();
    std::vector<std::vector<std::uint8_t>> handles = {me.receive_handle};
    for (const Lane& lane : lanes_.front())
      for (const Buffer* b : {&lane.arrived, &lane.credit, &lane.inbox}) handles.push_back(backend.export_shared(*b));
    others_ = map_every_rank(backend, world, me.index, me.device, handles);
    for (const RankMemory& other : others_) {
      if (other.buffers.empty()) continue;  // this rank's own
      View v;
      v.device = other.device;
      v.receive = other.buffers[0].data();
      for (int k = 0; k < group_.routes; ++k) {
        v.arrived.push_back(other.buffers[1 + 3 * k].as<std::uint64_t>());
        v.credit.push_back(other.buffers[2 + 3 * k].as<std::uint64_t>());
        v.inbox.push_back(other.buffers[3 + 3 * k].as<std::uint64_t>());
      }
      views_[other.participant] = std::move(v);
    }
  }

  // Local participant p's launch for route k: its own flags, and those of the peers route k pairs it with.
  PeerStoreExchange kernel_for(const ExchangePlan& plan, int p, int k, bool ll) {
    const int me = group_.local[p].index;
    const Route peers = peers_of(plan, me, k);
    Lane& lane = lanes_[p][k];
    PeerStoreExchange e;
    e.plan = plan;
    e.me = me;
    e.route = k;
    e.first_tag = next_tag_;
    e.ll = ll;
    e.ll_slot_words = ll_slot_words_;
    e.send = group_.local[p].send;
    e.receive = group_.local[p].receive;
    e.arrived = lane.arrived.as<std::uint64_t>();
    e.inbox = lane.inbox.as<std::uint64_t>();
    e.credit = lane.credit.as<std::uint64_t>();
    if (peers.send_to >= 0) {
      const View& to = views_[peers.send_to];
      e.to_receive = to.receive;
      e.to_arrived = to.arrived[k];
      e.to_inbox = to.inbox[k];
    }
    if (peers.receive_from >= 0) e.from_credit = views_[peers.receive_from].credit[k];
    e.failure = lane.failure.device_view_as<std::uint64_t>();
    e.timeout_ns = static_cast<std::uint64_t>(options_.timeout_s * 1e9);
    return e;
  }

  bool uses_ll(std::uint64_t bytes) const {
    switch (options_.sm_protocol) {
      case Options::SmProtocol::ll: return true;
      case Options::SmProtocol::direct: return false;
      case Options::SmProtocol::automatic: return bytes <= sm_ll_largest_bytes;
    }
    return true;
  }

  int teams_for(std::uint64_t bytes, bool ll, int fan) const {
    const std::uint64_t wanted = ll ? ((bytes + 7) / 8 + ll_lines_per_team - 1) / ll_lines_per_team
                                    : (bytes + direct_bytes_per_team - 1) / direct_bytes_per_team;
    const int most_direct = options_.sm_teams > 0 ? options_.sm_teams : most_direct_teams;
    const int most = std::min({ll ? most_ll_teams : most_direct, std::max(1, resident_teams_ / fan), flag_teams});
    return static_cast<int>(std::clamp<std::uint64_t>(wanted, 1, static_cast<std::uint64_t>(most)));
  }

  std::string failure_text(const ExchangePlan& plan, int p, int k, std::uint64_t failure) const {
    const std::int64_t exchange = static_cast<std::int64_t>(failure >> 2) - 1;
    const bool credit = (failure & 3) == static_cast<std::uint64_t>(SmWait::credit);
    const Route peers = peers_of(plan, group_.local[p].index, k);
    const int peer = credit ? peers.send_to : peers.receive_from;
    return fmt::format("p2p-sm: device {} waited more than {} s for {} of exchange {} of {} ({} B) {} device {}",
                       group_.local[p].device, options_.timeout_s, credit ? "room in the inbox" : "the message",
                       exchange, plan.exchanges(), plan.bytes, credit ? "at" : "from",
                       peer >= 0 ? views_[peer].device : -1);
  }

  const Group group_;
  const Options options_;
  std::vector<std::vector<Lane>> lanes_;  // [local participant][route]
  std::vector<View> views_;               // [participant]: what its peers reach of it
  std::vector<RankMemory> others_;        // the other ranks' memory behind views_, mapped while this lives
  std::uint64_t ll_slot_words_ = 1;
  int resident_teams_ = 1;
  std::uint64_t next_tag_ = 1;
};

}  // namespace

std::unique_ptr<Transport> open_p2p_sm(Backend& backend, World& world, const Group& group, const Options& options) {
  return std::make_unique<PeerStores>(backend, world, group, options);
}

}  // namespace ferry::transport
