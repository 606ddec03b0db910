// Measuring one point: the host buffers, fresh input per pass, verification,
// and the designs that launch work per chunk.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>

#include "bench/common/verify.hpp"
#include "bench/stream/stream_designs.hpp"
#include "bench/stream/stream_kernels.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/check.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/host_parallel.hpp"

namespace ferry::stream {
namespace {

constexpr std::int64_t words_per_host_thread = 4 << 20;
// A zero-copy team's share of a chunk: 16 KiB spreads a 256 KiB chunk over 16
// multiprocessors, enough reads in flight to keep PCIe busy.
constexpr std::uint64_t zero_copy_quads_per_team = 1024;
// And the most teams of all the chunks in flight: 16 keep the link busy both
// ways (link's zero-copy under load: 41 GB/s per direction from 8 teams up),
// and every team more only queues more reads ahead of each round trip. On an
// H100 (docs/stream.md, "What was tried") 1 MiB x 2 went from
// 83-88 us to 68 us and 1 MiB x 8 from 27.5 to 39.7 GB/s against 64 teams a
// chunk, 256 KiB x 8 from 68-70 to 60 us; a cap of 32 gained less, and
// 256 KiB and below at depths 1-4 did not move.
constexpr std::uint64_t zero_copy_teams_in_flight = 16;
// A persistent team's share: 8 KiB, one batch of its ring, so a 256 KiB
// chunk is read by 32 multiprocessors at once. On an H100
// (docs/stream.md, "What was tried"), against 16 KiB:
// 256 KiB chunks took 39.5-40.1 us at depth 4 against 45.8-47.4, 64 KiB
// 22.6-22.9 against 33.9-35.0; depths 1 and 2 did not move. And the most
// teams: 32, each with a batch of reads in flight (256 KiB in all). With
// batches of 16 KiB, 16 teams moved 1 MiB chunks as 32 did, and 8 took
// 44.6 us at depth 1 against 38.6-39.8.
constexpr std::uint64_t persistent_quads_per_team = 512;
constexpr int persistent_most_teams = 32;

Buffer host_buffer(Backend& backend, std::uint64_t bytes) {
  return backend.allocate_host(backend.capabilities().mapped_memory ? MemoryKind::mapped : MemoryKind::pinned, bytes);
}

}  // namespace

StreamBench::StreamBench(Backend& backend, const Machine& machine, const StreamConfig& config)
    : backend_(backend),
      config_(config),
      multiprocessors_(std::max(1, machine.gpus.at(config.device).multiprocessors)),
      input_(host_buffer(backend, config.total_bytes)),
      output_(host_buffer(backend, config.total_bytes)) {}

std::uint64_t StreamBench::chunks_of(const Point& point) const {
  return (config_.total_bytes + point.chunk_bytes - 1) / point.chunk_bytes;
}

int StreamBench::persistent_teams(std::uint64_t chunk_bytes, int resident) const {
  if (config_.persistent_teams > 0) return config_.persistent_teams;
  const auto wanted = static_cast<int>(std::min<std::uint64_t>(
      1 << 20, (chunk_bytes / quad_bytes + persistent_quads_per_team - 1) / persistent_quads_per_team));
  return std::clamp(wanted, 1, std::max(1, std::min(persistent_most_teams, resident)));
}

void fill_input(std::uint32_t* words, std::uint64_t count, std::uint64_t seed) {
  parallel_ranges(static_cast<std::int64_t>(count), words_per_host_thread, [&](std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) words[i] = input_word(static_cast<std::uint64_t>(i), seed);
  });
}

std::uint64_t wrong_outputs(const std::uint32_t* words, std::uint64_t count, std::uint64_t seed, int stages,
                            int rounds) {
  std::atomic<std::uint64_t> wrong{0};
  parallel_ranges(static_cast<std::int64_t>(count), words_per_host_thread, [&](std::int64_t first, std::int64_t end) {
    std::uint64_t mine = 0;
    for (std::int64_t i = first; i < end; ++i)
      mine += words[i] != all_stages(input_word(static_cast<std::uint64_t>(i), seed), stages, rounds);
    wrong += mine;
  });
  return wrong;
}

void StreamBench::prepare(std::uint64_t seed) {
  fill_input(input_.as<std::uint32_t>(), config_.total_bytes / 4, seed);
  poison_on_host(output_.data(), output_.bytes());
}

std::uint64_t StreamBench::wrong_words(std::uint64_t seed) const {
  return wrong_reported("stream.output", wrong_outputs(output_.as<const std::uint32_t>(), config_.total_bytes / 4, seed,
                                                       config_.stages, config_.rounds_per_stage()));
}

void StreamBench::corrupt_one_word(const Point& point) {
  const StreamConfig::CorruptOutput& hook = config_.corrupt_output;
  if (hook.design != point.design || hook.chunk_bytes != point.chunk_bytes) return;
  output_.as<std::uint32_t>()[chunks_of(point) / 2 * point.chunk_bytes / 4] ^= 1;
}

PointMeasurement StreamBench::measure(const Point& point) {
  const std::uint64_t chunks = chunks_of(point);
  prepare(next_seed_++);
  stream_once(point, std::min(chunks, std::max<std::uint64_t>(config_.warmup_chunks, 1)));

  PointMeasurement m;
  m.latency_s.reserve(chunks * config_.iterations);
  for (int i = 0; i < config_.iterations; ++i) {
    const std::uint64_t seed = next_seed_++;
    prepare(seed);
    Pass pass = stream_once(point, chunks);
    if (i == 0) corrupt_one_word(point);
    m.latency_s.insert(m.latency_s.end(), pass.latency_s.begin(), pass.latency_s.end());
    m.wall_s.push_back(pass.wall_s);
    m.wrong_words += wrong_words(seed);
  }
  m.check = m.wrong_words == 0 ? Check::passed : Check::failed;
  return m;
}

Pass StreamBench::stream_once(const Point& point, std::uint64_t chunks) {
  return (this->*design_info(point.design).pass)(point, chunks);
}

Pass StreamBench::launch_per_chunk(const Point& point, std::uint64_t chunks) {
  struct Slot {
    std::unique_ptr<Stream> stream;
    std::unique_ptr<Event> done;  // none for zerocopy: its chunks raise a flag
    Buffer a, b;                  // device buffers: the chunk, and the pipeline's second buffer
  };
  const DesignInfo& design = design_info(point.design);
  const bool zerocopy = !design.copies_by_engine;  // the SMs move the chunk over mapped memory and raise its flag
  const bool kernel_per_stage = design.stage_at_a_time;
  const int rounds = config_.rounds_per_stage(), stages = config_.stages;

  std::vector<Slot> slots(chunks_in_flight(point, chunks));
  for (Slot& s : slots) {
    s.stream = backend_.make_stream(config_.device);
    if (!zerocopy) s.done = backend_.make_event(config_.device);
    if (design.chunk_buffers > 0) s.a = backend_.allocate_device(config_.device, point.chunk_bytes);
    if (design.chunk_buffers > 1) s.b = backend_.allocate_device(config_.device, point.chunk_bytes);
  }
  // Zero-copy chunks report their own completion: per slot, a count of finished
  // teams on the device and the number of the last finished chunk in host memory.
  Buffer finished_teams;
  std::optional<MappedFlags> finished_chunks;
  if (zerocopy) {
    finished_teams = backend_.allocate_device(config_.device, slots.size() * sizeof(std::uint64_t));
    slots.front().stream->fill(finished_teams.data(), 0, finished_teams.bytes());
    slots.front().stream->synchronize();
    finished_chunks.emplace(backend_, FlagLayout{.done = slots.size()});
  }
  std::vector<std::uint64_t> slot_teams(slots.size(), 0);  // zerocopy: teams launched so far per slot
  const std::uint64_t most_teams_a_chunk = std::max<std::uint64_t>(1, zero_copy_teams_in_flight / slots.size());
  const Quad* input_view = input_.device_view_as<const Quad>();
  Quad* output_view = output_.device_view_as<Quad>();

  auto enqueue = [&](std::uint64_t c, Slot& s) {
    const std::uint64_t offset = c * point.chunk_bytes;
    const std::uint64_t bytes = std::min(point.chunk_bytes, config_.total_bytes - offset);
    const std::uint64_t quads = bytes / quad_bytes, first_quad = offset / quad_bytes;
    Stream& stream = *s.stream;
    if (zerocopy) {
      const std::uint64_t k = c % slots.size();
      const std::uint64_t teams =
          std::clamp<std::uint64_t>((quads + zero_copy_quads_per_team - 1) / zero_copy_quads_per_team, 1,
                                    most_teams_a_chunk);
      const ZeroCopyChunk kernel{input_view + first_quad,
                                 output_view + first_quad,
                                 quads,
                                 {0, stages, rounds},
                                 finished_teams.as<std::uint64_t>() + k,
                                 finished_chunks->device().done + k * flag_stride,
                                 c + 1,
                                 slot_teams[k]};
      launch_zero_copy_chunk(stream, kernel, static_cast<int>(teams));
      slot_teams[k] += teams;
      return;
    }
    stream.copy(s.a.data(), input_.data() + offset, bytes);
    Quad* result = s.a.as<Quad>();
    if (kernel_per_stage) {  // pipeline: between two device buffers
      Quad* next = s.b.as<Quad>();
      for (int stage = 0; stage < stages; ++stage) {
        launch_stages(stream, {result, next, stage, 1, rounds}, quads);
        std::swap(result, next);
      }
    } else {  // offload, chunked: every stage in one kernel, in place
      launch_stages(stream, {result, result, 0, stages, rounds}, quads);
    }
    stream.copy(output_.data() + offset, result, bytes);
    stream.record(*s.done);
  };

  // Chunk c is visible once its slot's event completed, or for zero-copy once the slot's flag shows it.
  auto await = [&](std::uint64_t c) {
    const std::uint64_t k = c % slots.size();
    if (zerocopy)
      wait_for_flag(finished_chunks->host().done + k * flag_stride, c + 1, config_.timeout_s, design.name, c);
    else slots[k].done->synchronize();
  };
  Pass pass = closed_loop(
      chunks, slots.size(), [&](std::uint64_t c) { enqueue(c, slots[c % slots.size()]); }, await);
  for (Slot& s : slots) s.stream->synchronize();  // a flag comes just before its kernel ends
  return pass;
}

Pass pass_of(const std::vector<HostClock::time_point>& handed_over, const std::vector<HostClock::time_point>& visible) {
  Pass pass;
  pass.latency_s.resize(visible.size());
  for (std::size_t c = 0; c < visible.size(); ++c) pass.latency_s[c] = seconds_between(handed_over[c], visible[c]);
  pass.wall_s = seconds_between(handed_over.front(), visible.back());
  return pass;
}

Pass closed_loop(std::uint64_t chunks, std::uint64_t in_flight, const std::function<void(std::uint64_t)>& hand_over,
                 const std::function<void(std::uint64_t)>& await, const std::function<HostClock::time_point()>& now) {
  std::vector<HostClock::time_point> handed_over(chunks), visible(chunks);
  auto consume = [&](std::uint64_t c) {
    await(c);
    visible[c] = now();
  };
  for (std::uint64_t c = 0; c < chunks; ++c) {
    if (c >= in_flight) consume(c - in_flight);
    handed_over[c] = now();
    hand_over(c);
  }
  for (std::uint64_t c = chunks - std::min(chunks, in_flight); c < chunks; ++c) consume(c);
  return pass_of(handed_over, visible);
}

MappedFlags::MappedFlags(Backend& backend, FlagLayout layout)
    : layout_(layout), words_(backend.allocate_host(MemoryKind::mapped, layout.bytes())) {
  std::fill_n(words_.as<std::uint64_t>(), layout.words(), 0);
}

ShutdownOnExit shutdown_by_doorbells(std::uint64_t* doorbells, int slots, Stream& stream) {
  return ShutdownOnExit([doorbells, slots, &stream] {
    for (int k = 0; k < slots; ++k) store_release_system(doorbells + k * flag_stride, shutdown_bit);
    stream.synchronize();
  });
}

void wait_for_flag(const std::uint64_t* flag, std::uint64_t value, double timeout_s, std::string_view design,
                   std::uint64_t chunk, const std::uint64_t* failure,
                   const std::function<std::string(std::uint64_t)>& failure_text) {
  if (load_acquire_system(flag) >= value) return;
  const auto start = HostClock::now();
  HostPoll poll;
  while (load_acquire_system(flag) < value) {
    poll.idle();
    const std::uint64_t failed = failure ? load_acquire_system(failure) : no_failure;
    if (failed != no_failure || seconds_between(start, HostClock::now()) > timeout_s)
      throw RuntimeFailure(fmt::format("{}: chunk {} did not report completion within {} s{}", design, chunk, timeout_s,
                                       failed != no_failure && failure_text ? failure_text(failed) : ""));
  }
}

}  // namespace ferry::stream
