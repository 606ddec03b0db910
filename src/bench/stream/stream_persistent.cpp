// The persistent design's host side: launch the pipeline once, ring the
// doorbell per chunk, poll the consumer's done counters, shut it down.
#include <fmt/format.h>

#include <algorithm>

#include "bench/stream/stream_kernels.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"

namespace ferry::stream {
namespace {

constexpr int ring_slots = 2;  // double buffering between roles

// The mapped words the host and the pipeline share, each on its own line.
struct Flags {
  std::uint64_t* doorbell;
  std::uint64_t* done;     // one per consumer team, flag_stride apart
  std::uint64_t* failure;  // one per team, flag_stride apart
};

std::string role_name(int role, int stages) {
  return role == 0 ? "the producer" : role == stages + 1 ? "the consumer" : fmt::format("stage {}", role);
}

// Who gave up waiting, if a team did. A role waits on the role before it, so
// once one team stops, the teams after it give up too, on the same chunk or a
// later one: the team that gave up on the earliest chunk, the most upstream
// of those, is where the pipeline broke.
std::string first_to_give_up(const std::uint64_t* failure, int teams_per_role, int stages) {
  std::uint64_t earliest = no_failure;
  int first = -1;
  for (int team = 0; team < teams_per_role * (stages + 2); ++team) {
    const std::uint64_t chunk = load_acquire_system(failure + team * flag_stride);
    if (chunk != no_failure && (first < 0 || chunk < earliest)) earliest = chunk, first = team;
  }
  if (first < 0) return "";
  return fmt::format("{} (team {}) gave up waiting for chunk {}", role_name(first / teams_per_role, stages),
                     first % teams_per_role, earliest - 1);
}

std::string with_cause(const std::string& gave_up) { return gave_up.empty() ? "" : ": " + gave_up; }

}  // namespace

std::uint64_t persistent_ring_bytes(int stages, std::uint64_t chunk_bytes) {
  // Each 4-byte value travels in an 8-byte ring word with its chunk number.
  return (stages + 1ull) * ring_slots * chunk_bytes * 2;
}

Pass StreamBench::persistent(const Point& point, std::uint64_t chunks) {
  const int stages = config_.stages;
  const int teams = persistent_teams(point.chunk_bytes);
  const auto rings_count = static_cast<std::uint64_t>(stages + 1);
  const std::uint64_t chunk_quads = point.chunk_bytes / quad_bytes;

  auto stream = backend_.make_stream(config_.device);
  Buffer rings = backend_.allocate_device(config_.device, persistent_ring_bytes(stages, point.chunk_bytes));
  stream->fill(rings.data(), 0, rings.bytes());  // chunk number 0 in a ring word: no chunk yet
  Buffer counters = backend_.allocate_device(config_.device, 2 * rings_count * teams * sizeof(std::uint64_t));
  stream->fill(counters.data(), 0, counters.bytes());
  stream->synchronize();
  const int all_teams = teams * (stages + 2);
  const std::uint64_t shared_words = (1 + teams + all_teams) * flag_stride;
  Buffer shared = backend_.allocate_host(MemoryKind::mapped, shared_words * sizeof(std::uint64_t));
  std::fill_n(shared.as<std::uint64_t>(), shared_words, no_failure);
  const Flags flags{shared.as<std::uint64_t>(), shared.as<std::uint64_t>() + flag_stride,
                    shared.as<std::uint64_t>() + (1 + teams) * flag_stride};
  auto* shared_view = shared.device_view_as<std::uint64_t>();

  const PersistentPipeline kernel{
      .stages = stages,
      .teams_per_role = teams,
      .rounds = config_.rounds_per_stage(),
      .ring_slots = ring_slots,
      .chunk_quads = chunk_quads,
      .total_quads = config_.total_bytes / quad_bytes,
      .input = input_.device_view_as<const Quad>(),
      .output = output_.device_view_as<Quad>(),
      .rings = rings.as<std::uint64_t>(),
      .ready = counters.as<std::uint64_t>(),
      .taken = counters.as<std::uint64_t>() + rings_count * teams,
      .doorbell = shared_view,
      .done = shared_view + flag_stride,
      .failure = shared_view + (1 + teams) * flag_stride,
      .timeout_ns = config_.timeout_ns(),
      .unseen_role = config_.unseen_flag.role,
      .unseen_chunk = config_.unseen_flag.chunk,
  };
  launch_persistent(*stream, kernel);

  std::uint64_t released = 0;
  // However the pass ends, the pipeline gets the shutdown message after the
  // chunks released so far, and the host waits for it to leave.
  ShutdownOnExit shutdown([&] {
    store_release_system(flags.doorbell, released | shutdown_bit);
    stream->synchronize();
  });

  auto completed_now = [&] {
    std::uint64_t least = ~0ull;
    for (int b = 0; b < teams; ++b) least = std::min(least, load_acquire_system(flags.done + b * flag_stride) & ~shutdown_bit);
    return least;
  };

  std::vector<HostClock::time_point> ready(chunks);
  Pass pass;
  pass.latency_s.resize(chunks);
  std::uint64_t completed = 0;
  auto progress_at = HostClock::now();
  HostClock::time_point last_visible{};
  const auto depth = static_cast<std::uint64_t>(point.depth);
  HostPoll poll;
  while (completed < chunks) {
    if (released < chunks && released - completed < depth) {
      ready[released] = HostClock::now();
      store_release_system(flags.doorbell, ++released);
      continue;
    }
    const std::uint64_t now_completed = completed_now();
    if (now_completed > completed) {
      last_visible = HostClock::now();
      for (std::uint64_t c = completed; c < now_completed; ++c) pass.latency_s[c] = seconds_between(ready[c], last_visible);
      completed = now_completed;
      progress_at = last_visible;
      continue;
    }
    poll.idle();
    // A team gives up after the timeout; the host waits twice as long, so it can say which one. The
    // first report seen need not be the cause's (threads run late on a busy host): once every team
    // has ended, each one that gave up has said where.
    if (!first_to_give_up(flags.failure, teams, stages).empty()) {
      shutdown.now();
      throw RuntimeFailure(fmt::format("persistent pipeline: chunk {} of {} did not come back: {} for {} s", completed,
                                       chunks, first_to_give_up(flags.failure, teams, stages), config_.timeout_s));
    }
    if (seconds_between(progress_at, HostClock::now()) > 2 * config_.timeout_s)
      throw RuntimeFailure(fmt::format("persistent pipeline: chunk {} of {} did not come back within {} s, and no "
                                       "team gave up waiting: the kernel stopped answering",
                                       completed, chunks, 2 * config_.timeout_s));
  }
  pass.wall_s = seconds_between(ready.front(), last_visible);

  shutdown.now();
  for (int b = 0; b < teams; ++b)
    if (load_acquire_system(flags.done + b * flag_stride) != (chunks | shutdown_bit))
      throw RuntimeFailure(fmt::format("persistent pipeline: the shutdown message did not reach consumer team {}{}", b,
                                       with_cause(first_to_give_up(flags.failure, teams, stages))));
  return pass;
}

}  // namespace ferry::stream
