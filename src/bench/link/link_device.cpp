// Device memory: a copy within one device, and copies between each pair of devices.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "bench/link/link_kernels.hpp"
#include "bench/link/link_run.hpp"
#include "core/check.hpp"
#include "core/units.hpp"
#include "model/link_model.hpp"

namespace ferry::link {
namespace {

Trial device_copy_trial(LinkRun& run, const char* section, Stream& destination_stream, Buffer& source,
                        Buffer& destination, std::uint64_t seed) {
  Trial t;
  t.prepare = [&] { run.checker.poison(destination_stream, destination); };
  t.enqueue = [&](Stream& s) { s.copy(destination.data(), source.data(), source.bytes()); };
  t.check = [&, seed] { return checked("link.copy", run.checker.matches(destination_stream, destination, seed)); };
  if (run.corrupts(section)) t.corrupt = [&] { run.corrupt_word(destination_stream, destination); };
  return t;
}

}  // namespace

void measure_device_copy(LinkRun& run, int device) {
  const std::uint64_t bytes = run.config.device_copy_bytes;
  run.progress.step(fmt::format("device {}: device-to-device copy, {}", device, format_bytes(bytes)));
  auto stream = run.backend.make_stream(device);
  Buffer source = run.backend.allocate_device(device, bytes);
  Buffer destination = run.backend.allocate_device(device, bytes);
  const std::uint64_t seed = seed_for(30, device, bytes);
  run.checker.fill(*stream, source, seed);
  Row row = make_row("device_copy", {{"device", device}, {"bytes", as_param(bytes)}}, Metric::rate,
                     time_on_device(run.backend, *stream, run.config.bandwidth_repeat,
                                    device_copy_trial(run, "device_copy", *stream, source, destination, seed)),
                     static_cast<double>(bytes));
  const double memory_Bps = run.gpu(device).memory_bandwidth_Bps;
  if (memory_Bps > 0) {
    row.model = model::device_copy_Bps(memory_Bps);
    row.model_basis = fmt::format("half of {:.0f} GB/s memory (read + write)", memory_Bps / 1e9);
  }
  run.profile_of(device).device_copy_Bps = row.value();
  run.add(std::move(row));
}

namespace {

// The link's theoretical one-way rate (model::peer_link), times the directions that run at once.
void set_peer_model(LinkRun& run, Row& row, int from, int to, double directions) {
  const model::RatedLink link = model::peer_link(run.machine, from, to);
  if (link.Bps <= 0) return;
  row.model = directions * link.Bps;
  row.model_basis = link.basis + (directions > 1 ? ", both directions" : "");
}

// A copy's worth of buffers each way between two devices: a source on each and
// the other's destination, each source with its own pattern.
struct BothWaysBuffers {
  Buffer a_source, a_destination, b_source, b_destination;
  std::uint64_t a_seed, b_seed;

  BothWaysBuffers(LinkRun& run, Stream& a_stream, Stream& b_stream, int a, int b, std::uint64_t bytes,
                  std::uint64_t what)
      : a_source(run.backend.allocate_device(a, bytes)),
        a_destination(run.backend.allocate_device(b, bytes)),
        b_source(run.backend.allocate_device(b, bytes)),
        b_destination(run.backend.allocate_device(a, bytes)),
        a_seed(seed_for(what, a * 64 + b, bytes)),
        b_seed(seed_for(what, b * 64 + a, bytes)) {
    run.checker.fill(a_stream, a_source, a_seed);
    run.checker.fill(b_stream, b_source, b_seed);
  }
};

// A copy each way at once, one sample: where the backend can capture across
// devices, one graph of `pairs` pairs in a chain (fork, both copies, join,
// then the next pair), timed once and divided, so that neither the host
// issuing copies to two devices nor a launch is timed; this is the pattern a
// ring's hop runs back to back. Else each copy on its own stream with its own
// events, the slower one.
class BothWaysTimer {
 public:
  BothWaysTimer(LinkRun& run, Stream& a_stream, Stream& b_stream, int a, int b)
      : a_stream_(a_stream),
        b_stream_(b_stream),
        fork_(run.backend.make_event(a)),
        join_(run.backend.make_event(b)),
        a_start_(run.backend.make_event(a)),
        a_end_(run.backend.make_event(a)),
        b_start_(run.backend.make_event(b)),
        b_end_(run.backend.make_event(b)),
        graphs_(run.backend.capabilities().multi_stream_graphs) {}

  static constexpr int pairs = 16;
  int pairs_per_sample() const { return graphs_ ? pairs : 1; }

  // The seconds of one pair of copies, averaged over the sample's pairs.
  double time(BothWaysBuffers& b, std::uint64_t bytes) {
    if (!graphs_) {
      a_stream_.record(*a_start_);
      a_stream_.copy(b.a_destination.data(), b.a_source.data(), bytes);
      a_stream_.record(*a_end_);
      b_stream_.record(*b_start_);
      b_stream_.copy(b.b_destination.data(), b.b_source.data(), bytes);
      b_stream_.record(*b_end_);
      a_end_->synchronize();
      b_end_->synchronize();
      return std::max(a_end_->seconds_since(*a_start_), b_end_->seconds_since(*b_start_));
    }
    if (!graph_ || graph_bytes_ != bytes) {
      a_stream_.begin_capture();
      for (int p = 0; p < pairs; ++p) {
        a_stream_.record(*fork_);
        b_stream_.wait(*fork_);
        a_stream_.copy(b.a_destination.data(), b.a_source.data(), bytes);
        b_stream_.copy(b.b_destination.data(), b.b_source.data(), bytes);
        b_stream_.record(*join_);
        a_stream_.wait(*join_);
      }
      graph_ = a_stream_.end_capture();
      graph_bytes_ = bytes;
    }
    a_stream_.record(*a_start_);
    a_stream_.replay(*graph_);
    a_stream_.record(*a_end_);
    a_end_->synchronize();
    return a_end_->seconds_since(*a_start_) / pairs;
  }

 private:
  Stream& a_stream_;
  Stream& b_stream_;
  std::unique_ptr<Event> fork_, join_, a_start_, a_end_, b_start_, b_end_;
  const bool graphs_;
  std::unique_ptr<Graph> graph_;
  std::uint64_t graph_bytes_ = 0;
};

// Peer copies by the copy engines both ways at once, at the b_eff definition's
// largest message (what p2p-ce's model reads: a ring's every hop copies both
// ways at once) and at --peer-size (the ceiling of the links both ways).
void measure_copies_both_ways(LinkRun& run, int from, int to) {
  auto from_stream = run.backend.make_stream(from);
  auto to_stream = run.backend.make_stream(to);
  BothWaysTimer timer(run, *from_stream, *to_stream, from, to);
  std::vector<std::uint64_t> sizes = {std::min<std::uint64_t>(2 << 20, run.config.peer_bytes), run.config.peer_bytes};
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<model::CopyTime> both_ways;
  for (std::uint64_t bytes : sizes) {
    run.progress.step(fmt::format("peer {} <-> {}: {} each way at once", from, to, format_bytes(bytes)));
    BothWaysBuffers b(run, *from_stream, *to_stream, from, to, bytes, 42);
    CustomTrial t;
    t.prepare = [&] {
      run.checker.poison(*to_stream, b.a_destination);
      run.checker.poison(*from_stream, b.b_destination);
    };
    t.time_one = [&] { return timer.time(b, bytes); };
    if (run.corrupts("peer_bidirectional")) t.corrupt = [&] { run.corrupt_word(*to_stream, b.a_destination); };
    t.check = [&] {
      const bool a = run.checker.matches(*to_stream, b.a_destination, b.a_seed);
      const bool c = run.checker.matches(*from_stream, b.b_destination, b.b_seed);
      return checked("link.copy", a && c);
    };
    Row row =
        make_row("peer_bidirectional",
                 {{"from", from}, {"to", to}, {"bytes", as_param(bytes)}, {"pairs a sample", timer.pairs_per_sample()}},
                 Metric::rate, time_custom(run.config.bandwidth_repeat, t), 2.0 * static_cast<double>(bytes));
    set_peer_model(run, row, from, to, 2);
    both_ways.push_back({bytes, row.stats().median});
    for (model::PeerProfile& p : run.outcome.profile.peers) {
      if (!((p.from == from && p.to == to) || (p.from == to && p.to == from))) continue;
      p.both_ways = both_ways;
      if (bytes == run.config.peer_bytes) p.bidirectional_Bps = row.value();
    }
    run.add(std::move(row));
  }
}

// Kernels on both devices copying 16 bytes a thread into the other's memory
// (stores, push) or out of it (loads, pull), at once: the ceiling of designs
// that move messages with SMs instead of copy engines (beff's p2p-sm).
void measure_sm_both_ways(LinkRun& run, int from, int to) {
  const std::uint64_t bytes = run.config.peer_bytes / sizeof(Word128) * sizeof(Word128);
  auto from_stream = run.backend.make_stream(from);
  auto to_stream = run.backend.make_stream(to);
  auto fork = run.backend.make_event(from), join = run.backend.make_event(to);
  BothWaysBuffers b(run, *from_stream, *to_stream, from, to, bytes, 43);
  const auto words = static_cast<std::int64_t>(bytes / sizeof(Word128));
  for (const bool push : {true, false}) {
    run.progress.step(
        fmt::format("peer {} <-> {}: SM {} both ways, {}", from, to, push ? "stores" : "loads", format_bytes(bytes)));
    Trial t;
    t.prepare = [&] {
      run.checker.poison(*to_stream, b.a_destination);
      run.checker.poison(*from_stream, b.b_destination);
    };
    // A pushing kernel runs where the source is, a pulling one where the destination is.
    t.enqueue = [&, push](Stream& s) {
      Stream& a_side = push ? s : *to_stream;
      Stream& b_side = push ? *to_stream : s;
      s.record(*fork);
      to_stream->wait(*fork);
      launch_zero_copy(a_side, {b.a_source.as<const Word128>(), b.a_destination.as<Word128>()}, words);
      launch_zero_copy(b_side, {b.b_source.as<const Word128>(), b.b_destination.as<Word128>()}, words);
      to_stream->record(*join);
      s.wait(*join);
    };
    if (run.corrupts("peer_sm")) t.corrupt = [&] { run.corrupt_word(*to_stream, b.a_destination); };
    t.check = [&] {
      const bool a = run.checker.matches(*to_stream, b.a_destination, b.a_seed);
      const bool c = run.checker.matches(*from_stream, b.b_destination, b.b_seed);
      return checked("link.copy", a && c);
    };
    Row row = make_row("peer_sm",
                       {{"from", from},
                        {"to", to},
                        {"kernels", push ? "stores into the peer" : "loads from the peer"},
                        {"bytes", as_param(bytes)}},
                       Metric::rate, time_on_device(run.backend, *from_stream, run.config.bandwidth_repeat, t),
                       2.0 * static_cast<double>(bytes));
    set_peer_model(run, row, from, to, 2);
    for (model::PeerProfile& p : run.outcome.profile.peers)
      if ((p.from == from && p.to == to) || (p.from == to && p.to == from))
        (push ? p.sm_push_Bps : p.sm_pull_Bps) = row.value();
    run.add(std::move(row));
  }
}

void measure_peers_both_ways(LinkRun& run) {
  const auto& devices = run.config.devices;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    for (std::size_t j = i + 1; j < devices.size(); ++j) {
      measure_copies_both_ways(run, devices[i], devices[j]);
      measure_sm_both_ways(run, devices[i], devices[j]);
    }
  }
}

// A peer copy of `bytes` one way, timed by events on the source's stream, beside its link's rate.
Row one_way_copy_row(LinkRun& run, Stream& from_stream, Stream& to_stream, const Params& pair, int from, int to,
                     std::uint64_t bytes, std::uint64_t what) {
  Buffer source = run.backend.allocate_device(from, bytes);
  Buffer destination = run.backend.allocate_device(to, bytes);
  const std::uint64_t seed = seed_for(what, from * 64 + to, bytes);
  run.checker.fill(from_stream, source, seed);
  Params params = pair;
  params.emplace_back("bytes", as_param(bytes));
  Row row = make_row("peer_bandwidth", params, Metric::rate,
                     time_on_device(run.backend, from_stream, run.config.bandwidth_repeat,
                                    device_copy_trial(run, "peer_bandwidth", to_stream, source, destination, seed)),
                     static_cast<double>(bytes));
  set_peer_model(run, row, from, to, 1);
  return row;
}

}  // namespace

void measure_peers(LinkRun& run) {
  const auto& devices = run.config.devices;
  if (devices.size() < 2) {
    run.skip("peer bandwidth and latency: needs 2 devices (--devices 0,1)");
    return;
  }
  const std::uint64_t bytes = run.config.peer_bytes;
  for (int from : devices) {
    for (int to : devices) {
      if (from == to) continue;
      run.progress.step(fmt::format("peer {} -> {}: {}", from, to, format_bytes(bytes)));
      const bool direct = run.backend.enable_peer_access(from, to) && run.backend.enable_peer_access(to, from);
      auto from_stream = run.backend.make_stream(from);
      auto to_stream = run.backend.make_stream(to);
      const Params pair = {{"from", from}, {"to", to}, {"access", direct ? "direct" : "through host"}};

      Row bandwidth = one_way_copy_row(run, *from_stream, *to_stream, pair, from, to, bytes, 40);
      // The b_eff definition's largest message, one way (with 8 B below, what p2p-ce's model reads),
      // unless --peer-size is no larger.
      std::vector<model::CopyTime> copy_times;
      std::optional<Row> mid;
      if (bytes > (2u << 20)) {
        mid = one_way_copy_row(run, *from_stream, *to_stream, pair, from, to, 2 << 20, 44);
        copy_times.push_back({2 << 20, mid->stats().median});
      }
      copy_times.push_back({bytes, bandwidth.stats().median});

      constexpr std::uint64_t latency_bytes = 8;
      Buffer small_source = run.backend.allocate_device(from, latency_bytes);
      Buffer small_destination = run.backend.allocate_device(to, latency_bytes);
      const std::uint64_t small_seed = seed_for(41, from * 64 + to, latency_bytes);
      run.checker.fill(*from_stream, small_source, small_seed);
      Params host_clock = pair, device_clock = pair;
      host_clock.emplace_back("clock", "host: copy + sync");
      device_clock.emplace_back("clock", "device: events");
      // A trial each, so that the test hook reaches only the first row.
      Row latency = make_row("peer_latency", host_clock, Metric::latency,
                             time_on_host(*from_stream, run.config.latency_repeat,
                                          device_copy_trial(run, "peer_latency", *to_stream, small_source,
                                                            small_destination, small_seed)));
      Row engine = make_row("peer_latency", device_clock, Metric::latency,
                            time_on_device(run.backend, *from_stream, run.config.latency_repeat,
                                           device_copy_trial(run, "peer_latency", *to_stream, small_source,
                                                             small_destination, small_seed)));

      run.outcome.profile.peers.push_back({.from = from,
                                           .to = to,
                                           .direct_access = direct,
                                           .copy_Bps = bandwidth.value(),
                                           .latency_s = latency.stats().median,
                                           // Both ways and by SMs: measured per pair below.
                                           .bidirectional_Bps = 0,
                                           .copy_times = {},
                                           .both_ways = {},
                                           .sm_push_Bps = 0,
                                           .sm_pull_Bps = 0});
      copy_times.insert(copy_times.begin(), {latency_bytes, engine.stats().median});
      run.outcome.profile.peers.back().copy_times = std::move(copy_times);
      run.add(std::move(bandwidth));
      if (mid) run.add(std::move(*mid));
      run.add(std::move(latency));
      run.add(std::move(engine));
    }
  }
  measure_peers_both_ways(run);
}

}  // namespace ferry::link
