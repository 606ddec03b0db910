// Zero-copy under load: k teams stream host memory to host memory through the
// SMs, both ways at once, while one thread times single reads of host memory.
// Each k gives a point of the link's trade: throughput against the round trip
// that a doorbell poll (or any read a design waits on) pays meanwhile.
#include <fmt/format.h>

#include <algorithm>

#include "bench/link/link_kernels.hpp"
#include "bench/link/link_run.hpp"
#include "core/check.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace ferry::link {
namespace {

// The streaming teams take milliseconds; a timing thread still waiting after this gives up and the row FAILS.
constexpr std::uint64_t loaded_timeout_ns = 10'000'000'000ull;

}  // namespace

void measure_zero_copy_under_load(LinkRun& run, int device) {
  if (run.config.loaded_teams.empty()) return;
  if (!run.backend.capabilities().mapped_memory) {
    run.skip("zero-copy under load: the backend cannot map host memory into a device");
    return;
  }
  auto stream = run.backend.make_stream(device);
  const int resident = loaded_resident_teams(*stream);
  const std::uint64_t bytes = run.config.loaded_bytes;
  Buffer source = run.backend.allocate_host(MemoryKind::mapped, bytes);
  Buffer destination = run.backend.allocate_host(MemoryKind::mapped, bytes);
  Buffer chain = run.backend.allocate_host(MemoryKind::mapped, chain_links * chain_stride * sizeof(std::uint64_t));
  Buffer counters = run.backend.allocate_device(device, 4 * sizeof(std::uint64_t));
  Buffer answer = run.backend.allocate_host(MemoryKind::pinned, 4 * sizeof(std::uint64_t));
  write_scattered_chain(chain.as<std::uint64_t>(), chain_links, chain_stride);
  const std::uint64_t seed = seed_for(60, device, bytes);
  run.checker.fill(*stream, source, seed);
  model::DeviceProfile& profile = run.profile_of(device);
  profile.zero_copy_under_load.clear();
  // Enough passes that a sample lasts milliseconds even at the link's full rate.
  const int passes = run.backend.capabilities().gpu_timings ? 4 : 1;

  for (int wanted : run.config.loaded_teams) {
    const int teams = std::min(wanted, resident - 1);
    if (teams < 1 || (!profile.zero_copy_under_load.empty() && profile.zero_copy_under_load.back().teams >= teams))
      continue;  // the device holds fewer teams at once: this count already ran
    run.progress.step(
        fmt::format("device {}: {} teams streaming host memory both ways, a read timed meanwhile", device, teams));
    std::vector<double> round_trips;
    bool chain_ok = true;
    const LoadedReadRoundTrip kernel{source.device_view_as<const Word128>(),
                                     destination.device_view_as<Word128>(),
                                     bytes / sizeof(Word128),
                                     passes,
                                     teams,
                                     chain.device_view_as<const std::uint64_t>(),
                                     counters.as<std::uint64_t>(),
                                     counters.as<std::uint64_t>() + 1,
                                     loaded_timeout_ns};
    Trial t{.prepare =
                [&] {
                  run.checker.poison(*stream, destination);
                  stream->fill(counters.data(), 0, counters.bytes());
                },
            .enqueue = [&](Stream& s) { launch_loaded_read_round_trip(s, kernel); },
            .check =
                [&] {
                  stream->copy(answer.data(), counters.data(), counters.bytes());
                  stream->synchronize();
                  const auto* timed = answer.as<std::uint64_t>() + 1;  // reads, nanoseconds, where the chain ended
                  chain_ok =
                      chain_ok && timed[0] > 0 && chain_end(chain.as<const std::uint64_t>(), timed[0]) == timed[2];
                  round_trips.push_back(static_cast<double>(timed[1]) * 1e-9 /
                                        static_cast<double>(std::max<std::uint64_t>(timed[0], 1)));
                  return checked("link.chain", chain_ok) &&
                         checked("link.copy", run.checker.matches(*stream, destination, seed));
                }};
    if (run.corrupts("zero_copy_load")) t.corrupt = [&] { run.corrupt_word(*stream, destination); };
    Measurement m = time_on_device(run.backend, *stream, run.config.bandwidth_repeat, t);
    Row row = make_row("zero_copy_load", {{"device", device}, {"teams", teams}, {"bytes", as_param(bytes * passes)}},
                       Metric::rate, m, static_cast<double>(bytes * passes));
    // Each timed sample's check read its round trip.
    const double trip = summarize(round_trips).median;
    row.note = fmt::format("a read's round trip meanwhile: {:.2f} us", trip * 1e6);
    profile.zero_copy_under_load.push_back({teams, row.value(), trip});
    run.add(std::move(row));
  }
}

}  // namespace ferry::link
