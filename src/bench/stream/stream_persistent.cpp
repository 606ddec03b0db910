// The persistent design's host side: launch the pipeline once, ring the
// doorbell per chunk, poll every team's done count, shut it down.
#include <fmt/format.h>

#include <algorithm>

#include "bench/stream/stream_persistent_kernel.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"

namespace ferry::stream {
namespace {

// A team's ring: eight batches of 8 KiB. A producer of 128 threads reads a
// batch in one wave and may run eight ahead of the consumer. On an H100
// (docs/stream.md, "What was tried"), against four
// batches of 16 KiB: 256 KiB chunks took 17.0 us at depth 1 against 19.2,
// 22.7 at depth 2 against 25.0-25.9, 1 MiB 36.1 and 62.5 against 39.1-39.8
// and 71.7-72.2. Batches of 4 KiB made a 64 KiB chunk's producer pay a
// round trip per batch (17.0 us, against 12.6-12.9).
constexpr int ring_slots = 8;
constexpr std::uint64_t batch_quads = 512;
static_assert(ring_slots <= PersistentPipeline::most_ring_slots, "the ring's head holds a step count per slot");

std::string role_name(int role, int stages) {
  return role == 0 ? "the producer" : role == stages + 1 ? "the consumer" : fmt::format("stage {}", role);
}

// Who gave up waiting, if a role did. A role waits on the role before it, so
// once one stops, the roles after it give up too, on the same chunk or a
// later one: the role that gave up on the earliest chunk, the most upstream
// of those, is where the pipeline broke.
std::string first_to_give_up(const std::uint64_t* failure, int teams, int stages) {
  std::uint64_t earliest = no_failure;
  int first = -1;
  for (int word = 0; word < teams * (stages + 2); ++word) {
    const std::uint64_t chunk = load_acquire_system(failure + word * flag_stride);
    if (chunk != no_failure && (first < 0 || chunk < earliest)) earliest = chunk, first = word;
  }
  if (first < 0) return "";
  return fmt::format("{} (team {}) gave up waiting for chunk {}", role_name(first / teams, stages), first % teams,
                     earliest - 1);
}

std::string with_cause(const std::string& gave_up) { return gave_up.empty() ? "" : ": " + gave_up; }

std::uint64_t persistent_shared_bytes() { return PersistentPipeline::shared_bytes(ring_slots, batch_quads); }

}  // namespace

Pass StreamBench::persistent(const Point& point, std::uint64_t chunks) {
  const int stages = config_.stages;
  auto stream = backend_.make_stream(config_.device);
  const int teams = persistent_teams(point.chunk_bytes, persistent_resident_teams(*stream, persistent_shared_bytes()));
  Buffer relay = backend_.allocate_device(config_.device, sizeof(std::uint64_t));
  stream->fill(relay.data(), 0, relay.bytes());
  stream->synchronize();
  // One doorbell, a done count per team, a failure word per role and team.
  const auto team_count = static_cast<std::uint64_t>(teams);
  const MappedFlags shared(backend_, {.doorbells = 1, .done = team_count, .failures = team_count * (stages + 2)});
  const FlagWords flags = shared.host(), device = shared.device();

  const PersistentPipeline kernel{
      .stages = stages,
      .teams = teams,
      .rounds = config_.rounds_per_stage(),
      .ring_slots = ring_slots,
      .batch_quads = batch_quads,
      .chunk_quads = point.chunk_bytes / quad_bytes,
      .total_quads = config_.total_bytes / quad_bytes,
      .input = input_.device_view_as<const Quad>(),
      .output = output_.device_view_as<Quad>(),
      .doorbell = device.doorbells,
      .relay = relay.as<std::uint64_t>(),
      .done = device.done,
      .failure = device.failures,
      .timeout_ns = config_.timeout_ns(),
      .unseen_role = config_.unseen_flag.role,
      .unseen_chunk = config_.unseen_flag.chunk,
  };
  launch_persistent(*stream, kernel);

  std::uint64_t released = 0;
  // However the pass ends, the pipeline gets the shutdown message after the
  // chunks released so far, and the host waits for it to leave.
  ShutdownOnExit shutdown([&] {
    store_release_system(flags.doorbells, released | shutdown_bit);
    stream->synchronize();
  });

  auto completed_now = [&] {
    std::uint64_t least = ~0ull;
    for (int b = 0; b < teams; ++b)
      least = std::min(least, load_acquire_system(flags.done + b * flag_stride) & ~shutdown_bit);
    return least;
  };

  std::vector<HostClock::time_point> ready(chunks), visible(chunks);
  std::uint64_t completed = 0;
  auto progress_at = HostClock::now();
  const auto depth = static_cast<std::uint64_t>(point.depth);
  HostPoll poll;
  while (completed < chunks) {
    if (released < chunks && released - completed < depth) {
      ready[released] = HostClock::now();
      store_release_system(flags.doorbells, ++released);
      continue;
    }
    const std::uint64_t now_completed = completed_now();
    if (now_completed > completed) {
      progress_at = HostClock::now();  // these chunks' outputs are visible now
      std::fill(visible.begin() + static_cast<std::ptrdiff_t>(completed),
                visible.begin() + static_cast<std::ptrdiff_t>(now_completed), progress_at);
      completed = now_completed;
      continue;
    }
    poll.idle();
    // A team gives up after the timeout; the host waits twice as long, so it can say which one. The
    // first report seen need not be the cause's (threads run late on a busy host): once every team
    // has ended, each one that gave up has said where.
    if (!first_to_give_up(flags.failures, teams, stages).empty()) {
      shutdown.now();
      throw RuntimeFailure(fmt::format("persistent pipeline: chunk {} of {} did not come back: {} for {} s", completed,
                                       chunks, first_to_give_up(flags.failures, teams, stages), config_.timeout_s));
    }
    if (seconds_between(progress_at, HostClock::now()) > 2 * config_.timeout_s)
      throw RuntimeFailure(fmt::format("persistent pipeline: chunk {} of {} did not come back within {} s, and no "
                                       "team gave up waiting: the kernel stopped answering",
                                       completed, chunks, 2 * config_.timeout_s));
  }
  Pass pass = pass_of(ready, visible);

  shutdown.now();
  for (int b = 0; b < teams; ++b)
    if (load_acquire_system(flags.done + b * flag_stride) != (chunks | shutdown_bit))
      throw RuntimeFailure(
          fmt::format("persistent pipeline: the shutdown message did not reach the consumer of team {}{}", b,
                      with_cause(first_to_give_up(flags.failures, teams, stages))));
  return pass;
}

}  // namespace ferry::stream
