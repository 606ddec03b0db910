// Which topologies this run can form, and each one's rounds on every
// transport that can run it. A topology the machine cannot form is named with
// the reason (a ring of 2 devices is the pair), not run twice.
#include "bench/topo/topo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "bench/topo/topo_run.hpp"
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
        one_per_rank_(world.distributed()),
        participants_(one_per_rank_ ? world.size() : static_cast<int>(config.devices.size())) {}

  WorkloadResult run() {
    validate(backend_, config_, participants_);
    // A rank that waits longer than any single step may take is waiting for a rank that is gone.
    world_.watch(std::max(60.0, 2 * config_.transport.timeout_s));
    // Every transport counted in; one found unavailable takes its steps back (a transport's
    // availability is known only once its buffers are allocated).
    progress_.expect(plan().steps.size());
    for (Topology topology : config_.topologies) {
      const std::string why = cannot_form(topology);
      if (!why.empty()) {
        skip(fmt::format("{}: {}", to_string(topology), why));
        continue;
      }
      switch (topology) {
        case Topology::pair:
          direct({{"pair one-way", Pattern::one_way}, {"pair both", Pattern::ring}}, 2);
          break;
        case Topology::ring: direct({{"ring", Pattern::ring}}, participants_); break;
        case Topology::fully_connected: direct({{"fully-connected", Pattern::fully_connected}}, participants_); break;
        case Topology::host_staged: host_staged(); break;
        case Topology::matrix: pairwise(); break;
      }
    }
    world_.stop_watching();
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

  // Every topology this run can form, every transport counted in.
  Plan plan() const {
    Plan p;
    const std::vector<std::uint64_t> sizes = config_.sizes;
    auto rounds = [&](int n, Pattern pattern, std::uint64_t bytes) {
      const double moved = static_cast<double>(n) * transport::fan_of(pattern, n) * static_cast<double>(bytes);
      // A round fills what is sent, poisons what will arrive and checks it; a first round is not timed.
      return PlannedStep{.repeat = {.warmup = 1, .min_samples = config_.rounds, .max_samples = config_.rounds},
                         .sample = {.peer_bytes = moved, .host_bytes = 3 * moved, .waits = 2}};
    };
    auto variant = [&](const std::string& name, Pattern pattern, int n, Kind kind) {
      p.steps.push_back({.what = fmt::format("{} by {}: opening", name, to_string(kind)), .repeat = {0, 0, 0, 0}, .setup_s = 0.05});
      for (std::size_t s = 0; s < sizes.size(); ++s) {
        PlannedStep step = rounds(n, pattern, sizes[s]);
        step.what = fmt::format("{} by {}: {} rounds of {} (size {} of {})", name, to_string(kind), config_.rounds,
                                format_bytes(sizes[s]), s + 1, sizes.size());
        p.steps.push_back(std::move(step));
      }
    };
    for (Topology topology : config_.topologies) {
      if (const std::string why = cannot_form(topology); !why.empty()) {
        p.skipped.push_back(fmt::format("{}: {}", to_string(topology), why));
        continue;
      }
      const int n = participants_;
      switch (topology) {
        case Topology::pair:
          for (Kind kind : config_.transports) {
            variant("pair one-way", Pattern::one_way, 2, kind);
            variant("pair both", Pattern::ring, 2, kind);
          }
          break;
        case Topology::ring:
          for (Kind kind : config_.transports) variant("ring", Pattern::ring, n, kind);
          break;
        case Topology::fully_connected:
          for (Kind kind : config_.transports) variant("fully-connected", Pattern::fully_connected, n, kind);
          break;
        case Topology::host_staged: {
          const Pattern pattern = n == 2 ? Pattern::ring : Pattern::fully_connected;
          for (std::uint64_t bytes : host_step_sizes())
            p.steps.push_back({.what = fmt::format("host-staged: the host -> host step alone, {}", format_bytes(bytes)),
                               .repeat = {1, 5, 5, 0},
                               .sample = {.host_bytes = 2.0 * n * transport::fan_of(pattern, n) * static_cast<double>(bytes)}});
          variant("host-staged", pattern, n, one_per_rank_ ? Kind::mpi_staged : Kind::host_staged);
          break;
        }
        case Topology::matrix:
          for (int a : config_.devices)
            for (int b : config_.devices)
              if (a != b)
                for (Kind kind : config_.transports) {
                  PlannedStep step = rounds(2, Pattern::one_way, config_.matrix_bytes);
                  step.what = fmt::format("matrix by {}: {} -> {}", to_string(kind), a, b);
                  step.repeat.min_samples = step.repeat.max_samples = 2 * config_.rounds;  // and the latency's rounds
                  p.steps.push_back(std::move(step));
                }
          break;
      }
    }
    return p;
  }

 private:
  std::string cannot_form(Topology topology) const {
    const int n = participants_;
    switch (topology) {
      case Topology::pair:
        if (n < 2) return "needs 2 devices (--devices 0,1) or 2 ranks";
        if (one_per_rank_ && n != 2)
          return fmt::format("under mpirun it needs exactly 2 ranks, not {}: with more, ring and fully-connected "
                             "take every rank",
                             n);
        return "";
      case Topology::ring:
      case Topology::fully_connected:
        if (n == 2) return fmt::format("{} of 2 devices is the pair both ways (measured as pair)", to_string(topology));
        if (n < 3) return "needs 3 devices or more";
        return "";
      case Topology::host_staged: return n < 2 ? "needs 2 devices or 2 ranks" : "";
      case Topology::matrix:
        if (one_per_rank_)
          return "the pairwise matrix drives every device from one process: run it without mpirun (--devices 0,1,...)";
        return n < 2 ? "needs 2 devices (--devices 0,1)" : "";
    }
    return "";
  }

  // The progress steps a topology takes when every transport of --transport can run it.
  std::size_t steps_of(Topology topology) const {
    const std::size_t transports = config_.transports.size(), per_variant = 1 + config_.sizes.size();
    const auto n = static_cast<std::size_t>(participants_);
    switch (topology) {
      case Topology::pair: return transports * 2 * per_variant;
      case Topology::ring:
      case Topology::fully_connected: return transports * per_variant;
      case Topology::host_staged: return host_step_sizes().size() + per_variant;
      case Topology::matrix: return n * (n - 1) * transports;
    }
    return 0;
  }

  void skip(const std::string& why) {
    if (std::find(skipped_.begin(), skipped_.end(), why) == skipped_.end()) skipped_.push_back(why);
  }

  // This process's devices among the first `n` participants.
  std::vector<int> local_devices(int n) const {
    if (one_per_rank_) return config_.devices;
    return {config_.devices.begin(), config_.devices.begin() + n};
  }

  std::uint64_t area_for(int routes, std::uint64_t largest) const {
    return std::max(static_cast<std::uint64_t>(routes) * transport::slot_pitch(largest),
                    static_cast<std::uint64_t>(config_.latency_exchanges) * transport::slot_pitch(config_.latency_bytes));
  }

  std::string members_text(const std::vector<Member>& members) const {
    const bool one_host = std::all_of(members.begin(), members.end(), [&](const Member& m) { return m.host == members[0].host; });
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
    ExchangeAreas areas(backend_, local_devices(n), one_per_rank_ ? world_.rank() : 0, n,
                        area_for(routes, config_.sizes.back()), config_.sizes.back(), routes);
    const std::vector<Member> members = gather_members(world_, areas.group());
    for (Kind kind : config_.transports) {
      const std::string why = transport::unavailable_anywhere(kind, backend_, world_, areas.group());
      if (!why.empty()) {
        skip(fmt::format("{}: {}", to_string(kind), why));
        progress_.expect_fewer(variants.size() * (1 + config_.sizes.size()));
        continue;
      }
      for (const Variant& v : variants) measure(v, kind, areas, members);
    }
  }

  void host_staged() {
    const int n = participants_;
    const Variant v{"host-staged", n == 2 ? Pattern::ring : Pattern::fully_connected};
    const int routes = transport::fan_of(v.pattern, n);
    ExchangeAreas areas(backend_, local_devices(n), one_per_rank_ ? world_.rank() : 0, n,
                        area_for(routes, config_.sizes.back()), config_.sizes.back(), routes);
    const std::vector<Member> members = gather_members(world_, areas.group());
    const Kind kind = one_per_rank_ ? Kind::mpi_staged : Kind::host_staged;
    const std::string why = transport::unavailable_anywhere(kind, backend_, world_, areas.group());
    if (!why.empty()) {
      skip(fmt::format("host-staged: {}: {}", to_string(kind), why));
      progress_.expect_fewer(steps_of(Topology::host_staged));
      return;
    }
    // The host step runs faster while its buffers fit in the CPU's caches, so it is timed at several sizes, with
    // as many messages at once as the exchange has, and P_host is the best of them: the peak is then a ceiling.
    const int messages = n * routes;
    for (std::uint64_t bytes : host_step_sizes()) {
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
    record.clock = moving->clock();
    record.members = members_text(members);
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
  }

  // Every ordered pair, one way, on every transport that can run it; then its latency.
  void pairwise() {
    const std::uint64_t area = area_for(1, config_.matrix_bytes);
    for (int a : config_.devices) {
      for (int b : config_.devices) {
        if (a == b) continue;
        ExchangeAreas areas(backend_, {a, b}, 0, 2, area, config_.matrix_bytes);
        for (Kind kind : config_.transports) {
          const std::string why = transport::unavailable_anywhere(kind, backend_, world_, areas.group());
          if (!why.empty()) {
            skip(fmt::format("{}: {}", to_string(kind), why));
            progress_.expect_fewer(1);
            continue;
          }
          progress_.step(fmt::format("matrix by {}: {} -> {}", to_string(kind), a, b));
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
        }
      }
    }
  }

  // 1, 4, 16 and 64 MiB, as far as the run's largest size; the largest alone when it is below 1 MiB.
  std::vector<std::uint64_t> host_step_sizes() const {
    const std::uint64_t largest = config_.sizes.back();
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t bytes = 1ull << 20; bytes <= std::min<std::uint64_t>(largest, 64ull << 20); bytes *= 4)
      sizes.push_back(bytes);
    if (sizes.empty()) sizes.push_back(largest);
    return sizes;
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
  const bool one_per_rank_;
  const int participants_;
  std::vector<TopologyRecord> records_;
  std::vector<MatrixCell> matrix_;
  std::vector<HostStep> host_steps_;
  std::vector<std::string> skipped_;
};

}  // namespace

Plan plan_run(Backend& backend, World& world, const Machine& machine, const TopoConfig& config) {
  const Progress silent("topo", false);
  return TopoRun(backend, world, machine, config, {}, silent).plan();
}

WorkloadResult run(Backend& backend, World& world, const Machine& machine, const TopoConfig& config,
                   const std::vector<model::PeerProfile>& link_peers, const Progress& progress) {
  return TopoRun(backend, world, machine, config, link_peers, progress).run();
}

}  // namespace ferry::topo
