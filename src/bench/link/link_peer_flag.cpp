// Flags between kernels on each pair of devices: what a message between
// running kernels pays besides its bytes, the latency term of beff's p2p-sm model.
#include "bench/link/link_peer_flag.hpp"

#include <fmt/format.h>

#include "bench/common/verify.hpp"
#include "bench/link/link_run.hpp"
#include "core/check.hpp"
#include "core/error.hpp"

namespace ferry::link {
namespace {

// Round trips a sample: two of these kernels on one H100 (two streams) took
// 0.77 us a round trip, and between devices one can only take longer, so a
// sample lasts over 77 us, long beside the device clock's tick.
constexpr std::uint64_t round_trips_per_sample = 100;
constexpr std::uint64_t timeout_ns = 10'000'000'000ull;

std::string step_text(int a, int b) {
  return fmt::format("peer {} <-> {}: kernel flag ping-pong x{}", a, b, round_trips_per_sample);
}

// The ping-pong between a and b, a launch of both kernels per sample. The
// tags grow from sample to sample, so no flag is ever reset.
class PeerFlagPingPong {
 public:
  PeerFlagPingPong(Backend& backend, int a, int b)
      : a_(a),
        b_(b),
        a_stream_(backend.make_stream(a)),
        b_stream_(backend.make_stream(b)),
        a_flag_(backend.allocate_device(a, sizeof(std::uint64_t))),
        b_flag_(backend.allocate_device(b, sizeof(std::uint64_t))),
        a_results_(backend.allocate_device(a, (answers + 1) * sizeof(std::uint64_t))),
        b_gave_up_(backend.allocate_device(b, sizeof(std::uint64_t))),
        seen_(backend.allocate_host(MemoryKind::pinned, (answers + 2) * sizeof(std::uint64_t))) {
    a_stream_->fill(a_flag_.data(), 0, a_flag_.bytes());
    b_stream_->fill(b_flag_.data(), 0, b_flag_.bytes());
    a_stream_->synchronize();
    b_stream_->synchronize();
  }

  // What no kernel of this sample may leave standing: the last sample's answers and time.
  void prepare() {
    a_stream_->fill(a_results_.data(), poison_byte, a_results_.bytes());
    b_stream_->fill(b_gave_up_.data(), 0, b_gave_up_.bytes());
    a_stream_->synchronize();
    b_stream_->synchronize();
    poison_on_host(seen_.data(), seen_.bytes());
  }

  // One sample's seconds one way: its timed round trips' time, halved, per round trip.
  // Each kernel is launched while its own device is idle: where CUDA loads
  // kernels lazily, a launch onto a device that runs a kernel may wait for it,
  // and the two kernels of one device would then wait for each other.
  double time_one() {
    sample_first_tag_ = next_tag_;
    next_tag_ += answers;
    auto* results = a_results_.as<std::uint64_t>();
    launch_peer_flag_answer(*b_stream_,
                            {b_flag_.as<const std::uint64_t>(), a_flag_.as<std::uint64_t>(), sample_first_tag_,
                             round_trips_per_sample, b_gave_up_.as<std::uint64_t>(), timeout_ns});
    launch_peer_flag_ping(*a_stream_, {b_flag_.as<std::uint64_t>(), a_flag_.as<const std::uint64_t>(),
                                       sample_first_tag_, round_trips_per_sample, results + 1, results, timeout_ns});
    auto* seen = seen_.as<std::uint64_t>();
    a_stream_->copy(seen, results, a_results_.bytes());
    b_stream_->copy(seen + answers + 1, b_gave_up_.data(), b_gave_up_.bytes());
    a_stream_->synchronize();
    b_stream_->synchronize();
    for (const auto& [device, word] : {std::pair{b_, seen[answers + 1]}, std::pair{a_, seen[0]}})
      if (word == kernel_timed_out)
        throw RuntimeFailure(fmt::format("peer flag ping-pong {} <-> {}: the kernel on device {} waited more than {} s "
                                         "for its peer's flag",
                                         a_, b_, device, timeout_ns / 1'000'000'000));
    return static_cast<double>(seen[0]) * 1e-9 / static_cast<double>(round_trips_per_sample) / 2;
  }

  // The test hook: one answer of the sample, as the host read it, carries another tag.
  void corrupt_an_answer() { seen_.as<std::uint64_t>()[1] ^= 1; }

  bool check() const {
    const auto* seen = seen_.as<const std::uint64_t>();
    return wrong_peer_flag_answers(seen + 1, answers, sample_first_tag_) == 0;
  }

 private:
  static constexpr std::uint64_t answers = round_trips_per_sample + 1;  // the untimed first one too

  const int a_, b_;
  std::unique_ptr<Stream> a_stream_, b_stream_;
  Buffer a_flag_, b_flag_;
  Buffer a_results_;  // [0]: nanoseconds, then the answers
  Buffer b_gave_up_;
  Buffer seen_;  // a's results, then b's word
  std::uint64_t next_tag_ = 1, sample_first_tag_ = 1;
};

void measure_pair(LinkRun& run, int a, int b) {
  run.progress.step(step_text(a, b));
  if (!run.backend.enable_peer_access(a, b) || !run.backend.enable_peer_access(b, a)) {
    run.skip(fmt::format("peer flag ping-pong {} <-> {}: the devices cannot reach each other's memory", a, b));
    return;
  }
  PeerFlagPingPong ping_pong(run.backend, a, b);
  CustomTrial trial{.prepare = [&] { ping_pong.prepare(); },
                    .time_one = [&] { return ping_pong.time_one(); },
                    .check = [&] { return ping_pong.check(); }};
  if (run.corrupts("peer_flag")) trial.corrupt = [&] { ping_pong.corrupt_an_answer(); };
  Row row = make_row("peer_flag",
                     {{"from", a},
                      {"to", b},
                      {"round trips a sample", as_param(round_trips_per_sample)},
                      {"clock", "device: the kernel's own"}},
                     Metric::latency, time_custom(run.config.latency_repeat, trial));
  row.note = "one way = half a round trip; every answer checked against its round trip's tag";
  for (model::PeerProfile& p : run.outcome.profile.peers)
    if ((p.from == a && p.to == b) || (p.from == b && p.to == a)) p.flag_one_way_s = row.stats().median;
  run.add(std::move(row));
}

}  // namespace

std::uint64_t wrong_peer_flag_answers(const std::uint64_t* answers, std::uint64_t count, std::uint64_t first_tag) {
  std::uint64_t wrong = 0;
  for (std::uint64_t k = 0; k < count; ++k) wrong += answers[k] != first_tag + k;
  return wrong_reported("link.peer_flag", wrong);
}

void measure_peer_flags(LinkRun& run) {
  const auto& devices = run.config.devices;
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = i + 1; j < devices.size(); ++j) measure_pair(run, devices[i], devices[j]);
}

void plan_peer_flags(const LinkConfig& config, Plan& plan) {
  const auto& devices = config.devices;
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = i + 1; j < devices.size(); ++j)
      plan.steps.push_back({.what = step_text(devices[i], devices[j]),
                            .repeat = config.latency_repeat,
                            .sample = {.waits = 2, .handoffs = 2.0 * (round_trips_per_sample + 1)}});
}

}  // namespace ferry::link
