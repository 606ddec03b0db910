// One transport over every message size: a warm-up, looplength calibrated to
// --min-time, then the repetitions, each on poisoned receive areas and
// checked word for word; every rank's samples gathered on rank 0.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bench/beff/beff_run.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry::beff {
namespace {

using transport::ExchangePlan;
using transport::Pattern;

class SizeMeasurement {
 public:
  SizeMeasurement(transport::Transport& transport, World& world, ExchangeAreas& areas, const BeffConfig& config,
                  Pattern pattern, std::uint64_t bytes)
      : transport_(transport), world_(world), areas_(areas), config_(config), pattern_(pattern), bytes_(bytes) {
    const std::int64_t capacity = static_cast<std::int64_t>(areas.area_bytes() / transport::slot_pitch(bytes));
    // A ping-pong keeps every exchange's message, so its count is bounded by the slots.
    most_ = pattern == Pattern::ping_pong ? std::min(config.most_exchanges, capacity) : config.most_exchanges;
  }

  SizeRecord run() {
    if (world_.rank() == config_.exit_rank && bytes_ == config_.exit_bytes) exit_mid_run();
    run_once(plan_for(2));  // warm-up: a first exchange may set up connections or load code
    SizeRecord record{bytes_, calibrated_looplength(), transport_.how(bytes_), {}};
    const ExchangePlan plan = plan_for(record.exchanges);
    const auto& local = areas_.group().local;
    for (const auto& p : local) record.participants.push_back({p.index, {}, 0});
    for (int rep = 0; rep < config_.repetitions; ++rep) {
      areas_.poison_receive(plan);
      const std::vector<double> seconds = run_once(plan);
      if (config_.corrupt_bytes == bytes_ && config_.corrupt_repetition == rep && pattern_ == Pattern::ring)
        areas_.corrupt_one_byte(plan);
      for (std::size_t k = 0; k < local.size(); ++k) {
        // A host-clocked transport times the rank's one participant.
        record.participants[k].seconds.push_back(seconds.at(std::min(k, seconds.size() - 1)));
        record.participants[k].wrong_words += wrong_reported("beff.message", areas_.wrong_words(plan, k));
      }
    }
    return record;
  }

 private:
  ExchangePlan plan_for(std::int64_t exchanges) const {
    return transport::make_plan(pattern_, areas_.group().participants, bytes_, exchanges, areas_.area_bytes());
  }

  // The fault hook's rank: gone as a crashed or killed process is, with no
  // MPI_Finalize and no word to the others, which must not wait for it forever.
  [[noreturn]] void exit_mid_run() const {
    std::fprintf(stderr, "ferry: rank %d: %s: exiting before the %s messages\n", world_.rank(), rank_exit_variable,
                 format_bytes(bytes_).c_str());
    std::fflush(stderr);
    std::_Exit(static_cast<int>(ExitCode::runtime_failure));
  }

  std::vector<double> run_once(const ExchangePlan& plan) {
    // Every run sends the pattern, the warm-up's and the calibration's too:
    // compute-sanitizer's initcheck caught them copying memory never written.
    areas_.fill_send(plan);
    transport_.prepare(plan);  // a graph is captured here, untimed, before the ranks start together
    world_.barrier();          // every rank starts the exchanges together
    std::vector<double> seconds = transport_.run(plan);
    world_.progressed(
        fmt::format("{} {} exchanges of {}", to_string(transport_.kind()), plan.exchanges(), format_bytes(bytes_)));
    return seconds;
  }

  // Exchanges per measurement so that one lasts at least --min-time on every
  // participant; the same on every rank.
  std::int64_t calibrated_looplength() {
    std::int64_t exchanges = 4;
    double slowest = 0;
    for (;;) {
      exchanges = std::min(exchanges, most_);
      const std::vector<double> seconds = run_once(plan_for(exchanges));
      slowest = world_.max(*std::max_element(seconds.begin(), seconds.end()));
      if (slowest >= config_.min_time_s / 8 || exchanges >= most_) break;
      const double grow = std::clamp(config_.min_time_s / 8 / std::max(slowest, 1e-9), 2.0, 64.0);
      exchanges = static_cast<std::int64_t>(std::ceil(static_cast<double>(exchanges) * grow));
    }
    const double wanted = std::ceil(static_cast<double>(exchanges) * config_.min_time_s / std::max(slowest, 1e-9));
    return world_.max(std::clamp<std::int64_t>(static_cast<std::int64_t>(wanted), 1, most_));
  }

  transport::Transport& transport_;
  World& world_;
  ExchangeAreas& areas_;
  const BeffConfig& config_;
  const Pattern pattern_;
  const std::uint64_t bytes_;
  std::int64_t most_ = 0;
};

// The records' numbers, one participant after another: participant, wrong words, then each repetition's seconds.
std::vector<double> pack(const std::vector<SizeRecord>& sizes) {
  std::vector<double> out;
  for (const SizeRecord& size : sizes) {
    for (const Samples& s : size.participants) {
      out.push_back(s.participant);
      out.push_back(static_cast<double>(s.wrong_words));
      out.insert(out.end(), s.seconds.begin(), s.seconds.end());
    }
  }
  return out;
}

// Rank 0: every rank's packed numbers (rank after rank, each with the same sizes) back into the records.
void unpack(std::vector<SizeRecord>& sizes, const std::vector<double>& all, int repetitions) {
  const std::size_t per_participant = 2 + static_cast<std::size_t>(repetitions);
  const std::size_t per_rank = sizes.size() * sizes.front().participants.size() * per_participant;
  for (SizeRecord& size : sizes) size.participants.clear();
  for (std::size_t at = 0; at < all.size(); at += per_rank) {
    std::size_t cursor = at;
    for (SizeRecord& size : sizes) {
      const std::size_t local = per_rank / sizes.size() / per_participant;
      for (std::size_t k = 0; k < local; ++k, cursor += per_participant) {
        Samples s{static_cast<int>(all[cursor]), {}, static_cast<std::uint64_t>(all[cursor + 1])};
        s.seconds.assign(all.begin() + static_cast<std::ptrdiff_t>(cursor + 2),
                         all.begin() + static_cast<std::ptrdiff_t>(cursor + per_participant));
        size.participants.push_back(std::move(s));
      }
    }
  }
  for (SizeRecord& size : sizes)
    std::sort(size.participants.begin(), size.participants.end(),
              [](const Samples& a, const Samples& b) { return a.participant < b.participant; });
}

}  // namespace

SizeRecord measure_size(transport::Transport& transport, World& world, ExchangeAreas& areas, const BeffConfig& config,
                        Pattern pattern, std::uint64_t bytes) {
  return SizeMeasurement(transport, world, areas, config, pattern, bytes).run();
}

TransportRecord measure_transport(Backend& backend, World& world, const BeffConfig& config, transport::Kind kind,
                                  const std::string& skipped, ExchangeAreas& areas, const Progress& progress) {
  TransportRecord record;
  record.kind = kind;
  const std::string name(to_string(kind));
  record.skipped = skipped;
  if (!record.skipped.empty()) return record;

  progress.step(fmt::format("{}: opening", name));
  const auto moving = transport::open(kind, backend, world, areas.group(), config.transport);
  record.clock = moving->clock();

  std::vector<SizeRecord> sizes;
  progress.step(fmt::format("{}: ping-pong of {}", name, format_bytes(config.latency_bytes)));
  sizes.push_back(measure_size(*moving, world, areas, config, Pattern::ping_pong, config.latency_bytes));
  const std::vector<std::uint64_t> ring_sizes = config.sizes();
  for (std::size_t k = 0; k < ring_sizes.size(); ++k) {
    progress.step(
        fmt::format("{}: ring, {} (size {} of {})", name, format_bytes(ring_sizes[k]), k + 1, ring_sizes.size()));
    sizes.push_back(measure_size(*moving, world, areas, config, Pattern::ring, ring_sizes[k]));
  }

  const std::vector<double> all = world.gather(pack(sizes));
  if (world.rank() == 0) unpack(sizes, all, config.repetitions);
  record.ping_pong = std::move(sizes.front());
  record.sizes.assign(std::make_move_iterator(sizes.begin() + 1), std::make_move_iterator(sizes.end()));
  return record;
}

}  // namespace ferry::beff
