// Kernel dispatch costs and the persistent kernel's flag round trip: the
// fixed costs every streaming and dispatch design pays per chunk or per kernel.
#include <fmt/format.h>

#include <algorithm>

#include "bench/common/verify.hpp"
#include "bench/link/link_kernels.hpp"
#include "bench/link/link_run.hpp"
#include "core/check.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry::link {
namespace {

constexpr double poll_timeout_s = 5.0;
constexpr std::uint64_t kernel_timeout_ns = 10'000'000'000ull;

// Spins until `done` holds for *flag and returns what it holds; throws when
// the kernel gave up or after the poll timeout, naming what it waited for.
template <class Done>
std::uint64_t await_flag(const std::uint64_t* flag, const char* what, Done done) {
  const auto start = HostClock::now();
  for (;;) {
    const std::uint64_t value = load_acquire_system(flag);
    if (value == kernel_timed_out)
      throw RuntimeFailure(fmt::format("{}: the kernel gave up waiting for the host", what));
    if (done(value)) return value;
    if (seconds_between(start, HostClock::now()) > poll_timeout_s)
      throw RuntimeFailure(fmt::format("{}: no answer from the kernel within {} s", what, poll_timeout_s));
  }
}

void await_value(const std::uint64_t* flag, std::uint64_t value, const char* what) {
  await_flag(flag, what, [value](std::uint64_t v) { return v == value; });
}

std::uint64_t await_change(const std::uint64_t* flag, std::uint64_t previous, const char* what) {
  return await_flag(flag, what, [previous](std::uint64_t v) { return v != previous; });
}

Row dispatch_row(std::string what, int device, int kernels, const Measurement& m, double divide_by = 1) {
  Measurement per_kernel = m;
  for (double& s : per_kernel.seconds) s /= divide_by;
  return make_row("dispatch", {{"device", device}, {"what", std::move(what)}, {"kernels per sample", kernels}},
                  Metric::latency, per_kernel);
}

// The same graph with programmatic edges: each kernel launches while the one
// before drains (Hopper's PDL), what a chain of dependent kernels pays per kernel.
void measure_programmatic_replay(LinkRun& run, int device, Stream& stream) {
  if (!run.backend.device_features(device).programmatic_launch) {
    run.skip("graph replay with programmatic edges: the device has no programmatic dependent launch");
    return;
  }
  const int kernels = run.config.kernels_per_sample;
  stream.begin_capture();
  for (int k = 0; k < kernels; ++k) launch_empty(stream, true);
  const auto graph = stream.end_capture();
  Trial replay{.enqueue = [&](Stream& s) { s.replay(*graph); }};
  Row row = dispatch_row("graph replay, programmatic edges, per kernel", device, kernels,
                         time_on_host(stream, run.config.dispatch_repeat, replay), kernels);
  model::DeviceProfile& profile = run.profile_of(device);
  profile.programmatic_graph_per_kernel_s = row.stats().median;
  row.note =
      fmt::format("{:.2f}x the plain graph's", profile.programmatic_graph_per_kernel_s / profile.graph_per_kernel_s);
  run.add(std::move(row));
}

// A graph of kernels that each read the words the one before wrote and write
// them one higher: per kernel, what a chain of dependent passes over that many
// bytes pays. Every word must reach the chain's length, so no kernel ran early.
Row time_dependent_replay(LinkRun& run, int device, Stream& stream, bool programmatic, double empty_per_kernel_s) {
  const int kernels = run.config.kernels_per_sample;
  const std::uint64_t bytes = run.config.dependent_kernel_bytes;
  const auto count = static_cast<std::int64_t>(bytes / sizeof(std::uint64_t));
  Buffer words = run.backend.allocate_device(device, bytes);
  Buffer seen = run.backend.allocate_host(MemoryKind::pinned, bytes);
  stream.begin_capture();
  for (int k = 0; k < kernels; ++k) launch_hand_on(stream, {words.as<std::uint64_t>()}, count, programmatic);
  const auto graph = stream.end_capture();
  Trial replay{.prepare =
                   [&] {
                     stream.fill(words.data(), 0, bytes);
                     stream.synchronize();
                   },
               .enqueue = [&](Stream& s) { s.replay(*graph); },
               .check =
                   [&] {
                     poison_on_host(seen.data(), bytes);
                     stream.copy(seen.data(), words.data(), bytes);
                     stream.synchronize();
                     const auto* got = seen.as<const std::uint64_t>();
                     return checked("link.chain", std::all_of(got, got + count, [&](std::uint64_t w) {
                                      return w == static_cast<std::uint64_t>(kernels);
                                    }));
                   }};
  if (run.corrupts("dispatch")) replay.corrupt = [&] { run.corrupt_word(stream, words); };
  Row row = dispatch_row(fmt::format("graph replay, {}dependent kernels of {}, per kernel",
                                     programmatic ? "programmatic edges, " : "", format_bytes(bytes)),
                         device, kernels, time_on_host(stream, run.config.dispatch_repeat, replay), kernels);
  row.note = fmt::format("each reads and writes what the one before wrote; {:.2f}x the empty kernels'",
                         row.stats().median / empty_per_kernel_s);
  return row;
}

void measure_dependent_replays(LinkRun& run, int device, Stream& stream) {
  model::DeviceProfile& profile = run.profile_of(device);
  Row plain = time_dependent_replay(run, device, stream, false, profile.graph_per_kernel_s);
  profile.dependent_graph_per_kernel_s = plain.stats().median;
  profile.dependent_kernel_bytes = static_cast<double>(run.config.dependent_kernel_bytes);
  run.add(std::move(plain));
  if (!run.backend.device_features(device).programmatic_launch) return;  // measure_programmatic_replay says so
  Row programmatic = time_dependent_replay(run, device, stream, true, profile.programmatic_graph_per_kernel_s);
  profile.dependent_programmatic_graph_per_kernel_s = programmatic.stats().median;
  run.add(std::move(programmatic));
}

// One chunk of stream's graph design with a word for its bytes: a launch of a
// graph that copies the word in, adds one to it, copies it out and raises a
// count in mapped memory; the host clock runs from the launch to the count
// seen. What such a chunk pays whatever its size: the launch, the copy
// engines' and the nodes' fixed costs, and the flag. As in the design, the
// next launch follows the flag at once, with no stream sync between.
void measure_graph_chunk_round_trip(LinkRun& run, int device, Stream& stream) {
  if (!run.backend.capabilities().mapped_memory) {
    run.skip("graph launch -> flag seen: the backend cannot map host memory into a device");
    return;
  }
  const int launches_timed = run.config.graph_round_trips;
  run.progress.step(fmt::format("device {}: graph launch -> flag seen x{}", device, launches_timed));
  Buffer source = run.backend.allocate_host(MemoryKind::pinned, sizeof(std::uint64_t));
  Buffer destination = run.backend.allocate_host(MemoryKind::pinned, sizeof(std::uint64_t));
  Buffer word = run.backend.allocate_device(device, sizeof(std::uint64_t));
  Buffer count = run.backend.allocate_device(device, sizeof(std::uint64_t));
  Buffer flag = run.backend.allocate_host(MemoryKind::mapped, sizeof(std::uint64_t));
  stream.fill(count.data(), 0, count.bytes());
  stream.synchronize();
  *flag.as<std::uint64_t>() = 0;
  stream.begin_capture();
  stream.copy(word.data(), source.data(), word.bytes());
  launch_hand_on(stream, {word.as<std::uint64_t>()}, 1, false);
  stream.copy(destination.data(), word.data(), word.bytes());
  launch_count_to_host(stream, {count.as<std::uint64_t>(), flag.device_view_as<std::uint64_t>()});
  const auto graph = stream.end_capture();

  std::uint64_t launches = 0;
  const std::uint64_t first_word = seed_for(43, device, sizeof(std::uint64_t));
  CustomTrial trial{
      .prepare =
          [&] {
            *source.as<std::uint64_t>() = first_word + launches;
            poison_on_host(destination.data(), destination.bytes());
          },
      .time_one =
          [&] {
            const auto t0 = HostClock::now();
            stream.replay(*graph);
            await_value(flag.as<std::uint64_t>(), ++launches, "graph launch -> flag seen");
            return seconds_between(t0, HostClock::now());
          },
      .check = [&] { return checked("link.chain", *destination.as<const std::uint64_t>() == first_word + launches); }};
  if (run.corrupts("dispatch")) trial.corrupt = [&] { run.corrupt_word(stream, destination); };
  const Measurement m = time_custom({launches_timed / 10, launches_timed, launches_timed, 0}, trial);
  stream.synchronize();
  Row row = dispatch_row("graph launch -> flag seen: copy in, kernel, copy out, flag", device, 2, m);
  row.note = "8-byte copies; the word came back one higher every launch";
  run.profile_of(device).graph_chunk_round_trip_s = row.stats().median;
  run.add(std::move(row));
}

// `teams` teams crossing barriers in a row, each team checking that its
// neighbour arrived, timed on the device: a row per barrier.
template <bool Cluster>
Row time_barriers(LinkRun& run, int device, Stream& stream, int teams, const std::string& what) {
  // Enough barriers that the launch around them is a few percent; fewer where a barrier is a CPU thread's wait.
  const int barriers = run.backend.capabilities().gpu_timings ? 1000 : 50;
  Buffer words = run.backend.allocate_device(device, static_cast<std::size_t>(teams + 1) * sizeof(std::uint64_t));
  Buffer misses = run.backend.allocate_host(MemoryKind::pinned, sizeof(std::uint64_t));
  auto* arrivals = words.as<std::uint64_t>();
  const TeamBarriers<Cluster> kernel{arrivals, arrivals + teams, barriers};
  Trial trial{.prepare = [&] { stream.fill(words.data(), 0, words.bytes()); },
              .enqueue = [&](Stream& s) { launch_barriers(s, teams, kernel); },
              .check =
                  [&] {
                    *misses.as<std::uint64_t>() = ~0ull;
                    stream.copy(misses.data(), arrivals + teams, sizeof(std::uint64_t));
                    stream.synchronize();
                    return checked("link.chain", *misses.as<std::uint64_t>() == 0);
                  }};
  if (run.corrupts("dispatch"))
    trial.corrupt = [&] { run.corrupt_word(stream, words, static_cast<std::size_t>(teams)); };
  Measurement m = time_on_device(run.backend, stream, run.config.latency_repeat, trial);
  for (double& s : m.seconds) s /= barriers;
  Row row = dispatch_row(fmt::format("{}, {} teams, per barrier", what, teams), device, 1, m);
  row.note = fmt::format("{} barriers a sample; every team saw every other arrive", barriers);
  return row;
}

// A grid-wide barrier in a cooperative kernel, a team per multiprocessor: what
// a persistent kernel pays where a chain of kernels would launch the next.
void measure_grid_barrier(LinkRun& run, int device, Stream& stream) {
  if (!run.backend.device_features(device).all_teams_at_once) {
    run.skip("grid barrier: the device cannot launch cooperative kernels");
    return;
  }
  run.progress.step(fmt::format("device {}: grid barrier", device));
  const int teams = grid_barrier_teams(stream, run.gpu(device).multiprocessors);
  Row row = time_barriers<false>(run, device, stream, teams, "grid barrier");
  run.profile_of(device).grid_barrier_s = row.stats().median;
  run.add(std::move(row));
}

// A barrier of the largest thread-block cluster the device launches: what a
// sort held in one cluster's on-chip memory pays between its long passes.
void measure_cluster_barrier(LinkRun& run, int device, Stream& stream) {
  const int teams = run.backend.device_features(device).cluster_teams;
  if (teams < 2) {
    run.skip("cluster barrier: the device launches no thread-block clusters of 2 or more teams");
    return;
  }
  run.progress.step(fmt::format("device {}: cluster barrier", device));
  Row row = time_barriers<true>(run, device, stream, teams, "cluster barrier");
  run.profile_of(device).cluster_barrier_s = row.stats().median;
  run.add(std::move(row));
}

// Whatever happens after a persistent kernel's launch, it is told to stop and its stream drained.
struct StopKernel {
  std::uint64_t* doorbell;
  Stream& stream;
  ~StopKernel() {
    store_release_system(doorbell, stop_ticket);
    try {
      stream.synchronize();
    } catch (...) {
    }
  }
};

// Rings 1, 2, ... warmup + round_trips, each once the echo of the one before
// came back; the host clock runs from each ring to its echo seen, a sample
// per timed ring into `trips`. Returns how many echoes carried a wrong number.
std::uint64_t ring_and_time(std::uint64_t* doorbell, const std::uint64_t* reply, int warmup, int round_trips,
                            const char* what, Measurement& trips) {
  std::uint64_t echo = 0, wrong = 0;
  for (int i = 1; i <= warmup + round_trips; ++i) {
    const auto ring = static_cast<std::uint64_t>(i);
    const auto t0 = HostClock::now();
    store_release_system(doorbell, ring);
    echo = await_change(reply, echo, what);
    const double seconds = seconds_between(t0, HostClock::now());
    if (echo != ring) ++wrong;
    if (i > warmup) trips.seconds.push_back(seconds);
  }
  return wrong;
}

// A persistent kernel echoes each doorbell the host rings; the host clock runs
// from the ring to the echo seen. The host waits for the reply to change, then
// compares it with what it rang: a wrong echo is counted and the run goes on.
// `release_reply`: the echo is a release store, as a flag that publishes data is.
Row time_flag_echo(LinkRun& run, int device, bool release_reply) {
  const int round_trips = run.config.flag_round_trips;
  const char* what =
      release_reply ? "doorbell -> echo behind a system release fence" : "doorbell -> echo seen by the host";
  run.progress.step(fmt::format("device {}: persistent-kernel flag round trip{} x{}", device,
                                release_reply ? " behind a release fence" : "", round_trips));
  auto stream = run.backend.make_stream(device);
  Buffer flags = run.backend.allocate_host(MemoryKind::mapped, 2 * sizeof(std::uint64_t));
  auto* doorbell = flags.as<std::uint64_t>();
  auto* reply = doorbell + 1;
  *doorbell = 0;
  *reply = 0;
  const int warmup = echo_warmup(round_trips);
  const std::uint64_t first_timed = static_cast<std::uint64_t>(warmup) + 1;
  launch_flag_echo(*stream, FlagEcho{.doorbell = flags.device_view_as<const std::uint64_t>(),
                                     .reply = flags.device_view_as<std::uint64_t>() + 1,
                                     .idle_timeout_ns = kernel_timeout_ns,
                                     .release_reply = release_reply,
                                     .wrong_echo_for = run.corrupts("flag") ? first_timed : 0});

  StopKernel stop{doorbell, *stream};

  Measurement trips;
  const std::uint64_t wrong = ring_and_time(doorbell, reply, warmup, round_trips, what, trips);
  trips.check = checked("link.flag_echo", wrong == 0) ? Check::passed : Check::failed;
  Row row =
      make_row("flag", {{"device", device}, {"what", what}, {"round trips", round_trips}}, Metric::latency, trips);
  row.note = trips.check == Check::passed
                 ? "every echo matched its sequence number"
                 : fmt::format("{} of {} echoes carried a wrong number", wrong, warmup + round_trips);
  return row;
}

// The flag round trip with a chunk's data in it: for ring i the kernel copies
// chunk i of mapped input (a fresh chunk each ring, while there are enough)
// to mapped output and echoes i behind a release. The host clock runs from
// the ring to the echo seen; once the round trips end, every byte of every
// chunk copied is checked against the pattern the input was filled with.
Row time_chunk_echo(LinkRun& run, int device) {
  const int round_trips = run.config.flag_round_trips;
  const int warmup = echo_warmup(round_trips);
  const char* what = "doorbell -> 4 KiB read and written back, echo behind a release";
  run.progress.step(fmt::format("device {}: persistent-kernel chunk round trip x{}", device, round_trips));
  const std::uint64_t chunks = chunk_echo_chunks(round_trips);
  const std::uint64_t bytes = chunks * model::chunk_echo_bytes;
  auto stream = run.backend.make_stream(device);
  Buffer flags = run.backend.allocate_host(MemoryKind::mapped, 2 * sizeof(std::uint64_t));
  Buffer input = run.backend.allocate_host(MemoryKind::mapped, bytes);
  Buffer output = run.backend.allocate_host(MemoryKind::mapped, bytes);
  const std::uint64_t seed = 0xC4E0 + static_cast<std::uint64_t>(device);
  fill_pattern_on_host(input.data(), bytes, seed);
  poison_on_host(output.data(), bytes);
  auto* doorbell = flags.as<std::uint64_t>();
  auto* reply = doorbell + 1;
  *doorbell = 0;
  *reply = 0;
  const std::uint64_t first_timed = static_cast<std::uint64_t>(warmup) + 1;
  launch_chunk_echo(*stream, ChunkEcho{.doorbell = flags.device_view_as<const std::uint64_t>(),
                                       .reply = flags.device_view_as<std::uint64_t>() + 1,
                                       .input = input.device_view_as<const Word128>(),
                                       .output = output.device_view_as<Word128>(),
                                       .chunk_words = model::chunk_echo_bytes / sizeof(Word128),
                                       .chunks = chunks,
                                       .idle_timeout_ns = kernel_timeout_ns,
                                       .corrupt_ring = run.corrupts("flag") ? first_timed : 0});
  StopKernel stop{doorbell, *stream};

  Measurement trips;
  const std::uint64_t wrong_echoes = ring_and_time(doorbell, reply, warmup, round_trips, what, trips);
  const std::uint64_t wrong_words = count_mismatches_on_host(output.data(), bytes, seed);
  trips.check = checked("link.chunk_echo", wrong_echoes == 0 && wrong_words == 0) ? Check::passed : Check::failed;
  Row row =
      make_row("flag", {{"device", device}, {"what", what}, {"round trips", round_trips}}, Metric::latency, trips);
  if (trips.check == Check::passed)
    row.note = fmt::format("every echo matched its sequence number; every byte of the {} chunks checked", chunks);
  else
    row.note =
        fmt::format("{} wrong echoes, {} wrong 8-byte words in the {} chunks", wrong_echoes, wrong_words, chunks);
  return row;
}

}  // namespace

void measure_dispatch(LinkRun& run, int device) {
  auto stream = run.backend.make_stream(device);
  model::DeviceProfile& profile = run.profile_of(device);
  const int kernels = run.config.kernels_per_sample;

  run.progress.step(fmt::format("device {}: kernel launch and sync", device));
  Trial one{.enqueue = [](Stream& s) { launch_empty(s); }};
  Row launch =
      dispatch_row("launch + sync, one kernel", device, 1, time_on_host(*stream, run.config.latency_repeat, one));
  profile.launch_and_sync_s = launch.stats().median;
  run.add(std::move(launch));

  Trial many{.enqueue = [kernels](Stream& s) {
    for (int k = 0; k < kernels; ++k) launch_empty(s);
  }};
  Row per_kernel = dispatch_row("stream launch, per kernel", device, kernels,
                                time_on_host(*stream, run.config.dispatch_repeat, many), kernels);
  profile.launch_per_kernel_s = per_kernel.stats().median;
  run.add(std::move(per_kernel));

  if (run.backend.capabilities().graphs) {
    run.progress.step(fmt::format("device {}: graph replay", device));
    stream->begin_capture();
    for (int k = 0; k < kernels; ++k) launch_empty(*stream);
    const auto graph = stream->end_capture();
    Trial replay{.enqueue = [&](Stream& s) { s.replay(*graph); }};
    Row per_node = dispatch_row("graph replay, per kernel", device, kernels,
                                time_on_host(*stream, run.config.dispatch_repeat, replay), kernels);
    profile.graph_per_kernel_s = per_node.stats().median;
    per_node.note =
        fmt::format("{:.2f}x the stream launch cost", profile.graph_per_kernel_s / profile.launch_per_kernel_s);
    run.add(std::move(per_node));
    measure_programmatic_replay(run, device, *stream);
    measure_dependent_replays(run, device, *stream);
    measure_graph_chunk_round_trip(run, device, *stream);
  } else {
    run.skip("graph replay: the backend has no graphs");
  }
  measure_grid_barrier(run, device, *stream);
  measure_cluster_barrier(run, device, *stream);

  if (!run.backend.capabilities().mapped_memory) {
    run.skip("sync wake-up: the backend cannot map host memory into a device");
    return;
  }
  // A kernel spins on a mapped flag; the clock runs from the host releasing it
  // to stream sync returning: the cost of learning a kernel is done by syncing.
  run.progress.step(fmt::format("device {}: stream-sync wake-up", device));
  Buffer flags = run.backend.allocate_host(MemoryKind::mapped, 2 * sizeof(std::uint64_t));
  auto* release = flags.as<std::uint64_t>();
  auto* started = release + 1;
  const auto* release_view = flags.device_view_as<const std::uint64_t>();
  auto* started_view = flags.device_view_as<std::uint64_t>() + 1;
  *release = 0;
  *started = 0;
  std::uint64_t ticket = 0;
  Measurement wakeups;
  const Repeat& repeat = run.config.latency_repeat;
  for (int i = 0; i < repeat.warmup + repeat.min_samples; ++i) {
    ++ticket;
    launch_wait_for_release(*stream, WaitForRelease{release_view, started_view, ticket, kernel_timeout_ns});
    await_value(started, ticket, "sync wake-up");
    const auto t0 = HostClock::now();
    store_release_system(release, ticket);
    stream->synchronize();
    const double seconds = seconds_between(t0, HostClock::now());
    if (load_acquire_system(started) == kernel_timed_out) throw RuntimeFailure("sync wake-up: the kernel timed out");
    if (i >= repeat.warmup) wakeups.seconds.push_back(seconds);
  }
  Row wakeup = dispatch_row("sync wake-up: release kernel -> sync returns", device, 1, wakeups);
  profile.sync_wakeup_s = wakeup.stats().median;
  run.add(std::move(wakeup));
}

std::string fence_cost_note(double plain_s, double fenced_s) {
  if (fenced_s <= plain_s)
    return "within the noise of the plain echo (its median is no higher): the fence costs too little to see here";
  return fmt::format("{:+.2f} us over the plain echo: the fence", to_us(fenced_s - plain_s));
}

void measure_flag_round_trip(LinkRun& run, int device) {
  if (!run.backend.capabilities().mapped_memory) {
    run.skip("flag round trip: the backend cannot map host memory into a device");
    return;
  }
  Row plain = time_flag_echo(run, device, false);
  Row fenced = time_flag_echo(run, device, true);
  model::DeviceProfile& profile = run.profile_of(device);
  profile.flag_round_trip_s = plain.stats().median;
  profile.flag_round_trip_release_s = fenced.stats().median;
  fenced.note += "; " + fence_cost_note(profile.flag_round_trip_s, profile.flag_round_trip_release_s);
  run.add(std::move(plain));
  run.add(std::move(fenced));
}

void measure_chunk_round_trip(LinkRun& run, int device) {
  if (!run.backend.capabilities().mapped_memory) {
    run.skip("chunk round trip: the backend cannot map host memory into a device");
    return;
  }
  Row row = time_chunk_echo(run, device);
  run.profile_of(device).chunk_echo_s = row.stats().median;
  run.add(std::move(row));
}

void write_scattered_chain(std::uint64_t* words, std::uint64_t links, std::uint64_t stride) {
  const std::uint64_t step = links / 2 + 849;  // 2897 for 4096: odd, so the chain visits every link of a power of two
  for (std::uint64_t i = 0; i < links; ++i) words[i * stride] = ((i + step) % links) * stride;
}

std::uint64_t chain_end(const std::uint64_t* words, std::uint64_t reads) {
  std::uint64_t at = 0;
  for (std::uint64_t r = 0; r < reads; ++r) at = words[at];
  return at;
}

void measure_mapped_read_latency(LinkRun& run, int device) {
  if (!run.backend.capabilities().mapped_memory) {
    run.skip("mapped read latency: the backend cannot map host memory into a device");
    return;
  }
  run.progress.step(fmt::format("device {}: mapped-memory read round trip", device));
  constexpr std::uint64_t reads = 2000;
  auto stream = run.backend.make_stream(device);
  Buffer chain = run.backend.allocate_host(MemoryKind::mapped, chain_links * chain_stride * sizeof(std::uint64_t));
  Buffer last = run.backend.allocate_device(device, sizeof(std::uint64_t));
  Buffer answer = run.backend.allocate_host(MemoryKind::pinned, sizeof(std::uint64_t));
  write_scattered_chain(chain.as<std::uint64_t>(), chain_links, chain_stride);
  const std::uint64_t expected = chain_end(chain.as<const std::uint64_t>(), reads);

  Trial trial{
      .prepare = [&] { stream->fill(last.data(), poison_byte, last.bytes()); },
      .enqueue =
          [&](Stream& s) {
            launch_mapped_read_chain(s, {chain.device_view_as<const std::uint64_t>(), reads, last.as<std::uint64_t>()});
          },
      .check =
          [&] {
            stream->copy(answer.data(), last.data(), last.bytes());
            stream->synchronize();
            return checked("link.chain", *answer.as<std::uint64_t>() == expected);
          }};
  if (run.corrupts("flag")) trial.corrupt = [&] { run.corrupt_word(*stream, last); };
  Measurement m = time_on_device(run.backend, *stream, run.config.latency_repeat, trial);
  for (double& s : m.seconds) s /= static_cast<double>(reads);
  Row row = make_row("flag",
                     {{"device", device},
                      {"what", "mapped read round trip, per read"},
                      {"reads per sample", static_cast<std::int64_t>(reads)}},
                     Metric::latency, m);
  row.note = "one thread, each read's address from the read before";
  run.profile_of(device).mapped_read_latency_s = row.stats().median;
  run.add(std::move(row));
}

}  // namespace ferry::link
