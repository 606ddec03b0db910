// A topo run: each topology the participants can form (topo_plan.cpp says
// which), its rounds on every transport that can run it, and the pairwise
// matrix. A topology they cannot form is named with the reason, not run.
#include "bench/topo/topo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "bench/topo/topo_run.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::topo {
namespace {

using transport::Kind;
using transport::Pattern;

// A topology's name in the rows, and the pattern that forms it.
struct Variant {
  std::string name;
  Pattern pattern;
};

class TopoRun {
 public:
  TopoRun(Backend& backend, World& world, const Machine& machine, const TopoConfig& config,
          const std::vector<model::PeerProfile>& link_peers, const Progress& progress)
      : backend_(backend),
        world_(world),
        machine_(machine),
        config_(config),
        link_peers_(link_peers),
        progress_(progress),
        who_(participants_of(world, config)) {}

  WorkloadResult run() {
    validate(backend_, config_, who_.count);
    // A rank that waits longer than any single step may take is waiting for a rank that is gone.
    world_.watch(2 * config_.transport.timeout_s);
    // Every transport counted in; one found unavailable takes its steps back (a transport's
    // availability is known only once its buffers are allocated).
    progress_.expect(plan_run(backend_, world_, machine_, config_).steps.size());
    for (Topology topology : config_.topologies) {
      const std::string why = cannot_form(topology, who_);
      if (!why.empty()) {
        skip(fmt::format("{}: {}", to_string(topology), why));
        continue;
      }
      switch (topology) {
        case Topology::pair: direct({{"pair one-way", Pattern::one_way}, {"pair both", Pattern::ring}}, 2); break;
        case Topology::ring: direct({{"ring", Pattern::ring}}, who_.count); break;
        case Topology::fully_connected: direct({{"fully-connected", Pattern::fully_connected}}, who_.count); break;
        case Topology::host_staged: host_staged(); break;
        case Topology::matrix: pairwise(); break;
      }
    }
    world_.stop_watching();
    // What was skipped, and why, is the same on every rank, so every rank refuses alike.
    if (records_.empty() && matrix_.empty())
      throw UsageError(nothing_measured("topo", "topology and transport", skipped_));
    if (world_.rank() != 0) {
      WorkloadResult share;
      share.workload = "topo";
      return share;
    }
    WorkloadResult result = make_result(config_, records_, matrix_, host_steps_, skipped_);
    if (!backend_.capabilities().gpu_timings)
      result.notes.push_back("emulator: every round is checked as on a GPU, but the timings are CPU timings");
    return result;
  }

 private:
  void skip(const std::string& why) {
    if (std::find(skipped_.begin(), skipped_.end(), why) == skipped_.end()) skipped_.push_back(why);
  }

  // This process's devices among the first `n` participants.
  std::vector<int> local_devices(int n) const {
    if (who_.one_per_rank) return config_.devices;
    return {config_.devices.begin(), config_.devices.begin() + n};
  }

  std::uint64_t area_for(int routes, std::uint64_t largest) const {
    return std::max(static_cast<std::uint64_t>(routes) * transport::slot_pitch(largest),
                    static_cast<std::uint64_t>(config_.latency_exchanges) *
                        transport::slot_pitch(config_.latency_bytes));
  }

  std::string members_text(const std::vector<Member>& members) const {
    const bool one_host =
        std::all_of(members.begin(), members.end(), [&](const Member& m) { return m.host == members[0].host; });
    return join(members, ",", [&](const Member& m) {
      return one_host ? std::to_string(m.device) : fmt::format("{}:{}", m.host, m.device);
    });
  }

  static std::vector<int> devices_of(const std::vector<Member>& members) {
    std::vector<int> devices;
    for (const Member& m : members) devices.push_back(m.device);
    return devices;
  }

  // Direct topologies: every transport of --transport that can run on these participants.
  void direct(const std::vector<Variant>& variants, int n) {
    int routes = 1;
    for (const Variant& v : variants) routes = std::max(routes, transport::fan_of(v.pattern, n));
    ExchangeAreas shared(backend_, local_devices(n), who_.one_per_rank ? world_.rank() : 0, n,
                         area_for(routes, config_.sizes.back()), config_.sizes.back(), routes,
                         transport::run_area_memory(world_));
    const std::vector<Member> members = gather_members(world_, shared.group());
    for (Kind kind : config_.transports) {
      const std::string why = transport::unavailable_anywhere(kind, backend_, world_, shared.group());
      if (!why.empty()) {
        skip(fmt::format("{}: {}", to_string(kind), why));
        progress_.expect_fewer(variants.size() * (1 + config_.sizes.size()));
        continue;
      }
      // A transport whose areas come from elsewhere (NCCL's allocator) gets its own, of the same size.
      std::optional<ExchangeAreas> own = shared.on_memory(backend_, transport::area_memory(kind, world_));
      for (const Variant& v : variants) measure(v, kind, own ? *own : shared, members);
    }
  }

  void host_staged() {
    const int n = who_.count;
    const Variant v{"host-staged", n == 2 ? Pattern::ring : Pattern::fully_connected};
    const int routes = transport::fan_of(v.pattern, n);
    ExchangeAreas areas(backend_, local_devices(n), who_.one_per_rank ? world_.rank() : 0, n,
                        area_for(routes, config_.sizes.back()), config_.sizes.back(), routes);
    const std::vector<Member> members = gather_members(world_, areas.group());
    const Kind kind = who_.one_per_rank ? Kind::mpi_staged : Kind::host_staged;
    const std::string why = transport::unavailable_anywhere(kind, backend_, world_, areas.group());
    if (!why.empty()) {
      skip(fmt::format("host-staged: {}: {}", to_string(kind), why));
      progress_.expect_fewer(host_step_sizes(config_).size() + 1 + config_.sizes.size());
      return;
    }
    // The host step runs faster while its buffers fit in the CPU's caches, so it is timed at several sizes, with
    // as many messages at once as the exchange has, and P_host is the best of them: the peak is then a ceiling.
    const int messages = n * routes;
    for (std::uint64_t bytes : host_step_sizes(config_)) {
      progress_.step(fmt::format("host-staged: the host -> host step alone, {}", format_bytes(bytes)));
      const transport::HostStepTime time = transport::time_host_step(backend_, world_, bytes, messages, 5);
      HostStep step{.how = time.how, .seconds = time.seconds, .bytes = bytes};
      if (!step.seconds.empty())
        step.Bps = static_cast<double>(bytes) / *std::min_element(step.seconds.begin(), step.seconds.end());
      host_steps_.push_back(std::move(step));
    }
    measure(v, kind, areas, members);
  }

  void measure(const Variant& v, Kind kind, ExchangeAreas& areas, const std::vector<Member>& members) {
    const std::string name(to_string(kind));
    progress_.step(fmt::format("{} by {}: opening", v.name, name));
    const auto moving = transport::open(kind, backend_, world_, areas.group(), config_.transport);
    RoundRunner runner(*moving, world_, areas, config_);
    TopologyRecord record;
    record.name = v.name;
    record.kind = kind;
    record.pattern = v.pattern;
    record.clock = moving->clock();
    record.members = members_text(members);
    record.participants = static_cast<int>(members.size());
    record.one_per_rank = who_.one_per_rank;
    record.routes = transport::fan_of(v.pattern, areas.group().participants);
    const std::vector<int> devices = devices_of(members);
    if (world_.rank() == 0) {
      const HostStep host = best_host_step();
      record.theoretical = transport::through_host(kind) ? host_staged_peak(machine_, devices, host.Bps, host.bytes)
                                                         : direct_peak(machine_, v.pattern, devices);
      if (!transport::through_host(kind)) record.link = link_peak(link_peers_, v.pattern, devices);
    }
    for (std::size_t s = 0; s < config_.sizes.size(); ++s) {
      progress_.step(fmt::format("{} by {}: {} rounds of {} (size {} of {})", v.name, name, config_.rounds,
                                 format_bytes(config_.sizes[s]), s + 1, config_.sizes.size()));
      record.sizes.push_back(runner.bandwidth(v.pattern, config_.sizes[s]));
    }
    records_.push_back(std::move(record));
    keep_rows();
  }

  // The rows of what is measured so far, for the run's journal.
  void keep_rows() const {
    progress_.keep_rows_made_by([&] { return make_result(config_, records_, matrix_, host_steps_, skipped_); });
  }

  // Every ordered pair, one way, on every transport that can run it; then its latency.
  void pairwise() {
    const std::uint64_t area = area_for(1, config_.matrix_bytes);
    for (int a : config_.devices) {
      for (int b : config_.devices) {
        if (a == b) continue;
        ExchangeAreas shared(backend_, {a, b}, 0, 2, area, config_.matrix_bytes);
        for (Kind kind : config_.transports) {
          const std::string why = transport::unavailable_anywhere(kind, backend_, world_, shared.group());
          if (!why.empty()) {
            skip(fmt::format("{}: {}", to_string(kind), why));
            progress_.expect_fewer(1);
            continue;
          }
          progress_.step(fmt::format("matrix by {}: {} -> {}", to_string(kind), a, b));
          std::optional<ExchangeAreas> own = shared.on_memory(backend_, transport::area_memory(kind, world_));
          ExchangeAreas& areas = own ? *own : shared;
          const auto moving = transport::open(kind, backend_, world_, areas.group(), config_.transport);
          RoundRunner runner(*moving, world_, areas, config_);
          MatrixCell cell;
          cell.kind = kind;
          cell.from = a;
          cell.to = b;
          cell.bandwidth = runner.bandwidth(Pattern::one_way, config_.matrix_bytes);
          cell.latency = runner.latency();
          cell.theoretical = model::peer_link(machine_, a, b);
          matrix_.push_back(std::move(cell));
          keep_rows();
        }
      }
    }
  }

  // The fastest step that arrived intact; Bps 0 when none did (then no peak is claimed).
  HostStep best_host_step() const {
    HostStep best;
    for (const HostStep& step : host_steps_)
      if (step.Bps > best.Bps) best = step;
    return best;
  }

  Backend& backend_;
  World& world_;
  const Machine& machine_;
  const TopoConfig& config_;
  const std::vector<model::PeerProfile>& link_peers_;
  const Progress& progress_;
  const Participants who_;
  std::vector<TopologyRecord> records_;
  std::vector<MatrixCell> matrix_;
  std::vector<HostStep> host_steps_;
  std::vector<std::string> skipped_;
};

}  // namespace

WorkloadResult run(Backend& backend, World& world, const Machine& machine, const TopoConfig& config,
                   const std::vector<model::PeerProfile>& link_peers, const Progress& progress) {
  return TopoRun(backend, world, machine, config, link_peers, progress).run();
}

}  // namespace ferry::topo
