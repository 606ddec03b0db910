// Copies of one size queued back to back on a stream, the host never waiting
// between them: what a chunked design's copies cost per chunk once launches
// and syncs are out of the way. One way, and both ways at once on two streams.
#include <fmt/format.h>

#include <algorithm>

#include "bench/link/link_run.hpp"
#include "core/check.hpp"
#include "core/units.hpp"

namespace ferry::link {

std::uint64_t queued_copies_for(std::uint64_t bytes, std::uint64_t batch_bytes) {
  // Enough copies that a batch lasts milliseconds on a GPU, each moving bytes of
  // its own: a batch's buffers hold every copy of it.
  constexpr std::uint64_t fewest_copies = 4, most_copies = 1024;
  return std::clamp<std::uint64_t>(batch_bytes / bytes, fewest_copies, most_copies);
}

void measure_queued_copies(LinkRun& run, int device) {
  if (run.config.queued_copy_bytes.empty()) return;
  auto h2d = run.backend.make_stream(device);
  auto d2h = run.backend.make_stream(device);
  auto fork = run.backend.make_event(device), join = run.backend.make_event(device);
  model::DeviceProfile& profile = run.profile_of(device);
  profile.queued_h2d.clear();
  profile.queued_d2h.clear();
  profile.queued_both_ways.clear();

  for (std::uint64_t bytes : run.config.queued_copy_bytes) {
    const std::uint64_t copies = queued_copies_for(bytes, run.config.queued_batch_bytes);
    const std::uint64_t span = copies * bytes;
    run.progress.step(
        fmt::format("device {}: {} copies of {} queued back to back", device, copies, format_bytes(bytes)));
    Buffer host_source = run.backend.allocate_host(MemoryKind::pinned, span);
    Buffer host_destination = run.backend.allocate_host(MemoryKind::pinned, span);
    Buffer device_source = run.backend.allocate_device(device, span);
    Buffer device_destination = run.backend.allocate_device(device, span);
    const std::uint64_t host_seed = seed_for(40, device, bytes), device_seed = seed_for(41, device, bytes);
    run.checker.fill(*h2d, host_source, host_seed);
    run.checker.fill(*h2d, device_source, device_seed);

    for (const char* direction : {"h2d", "d2h", "bidir"}) {
      const bool in = direction[0] != 'd', out = direction[0] != 'h';
      Trial t;
      t.prepare = [&, in, out] {
        if (in) run.checker.poison(*h2d, device_destination);
        if (out) run.checker.poison(*d2h, host_destination);
      };
      t.enqueue = [&, in, out](Stream& s) {
        // The D2H copies run on the second stream, forked from and joined to the timed one.
        Stream& outward = in ? *d2h : s;
        if (in && out) {
          s.record(*fork);
          d2h->wait(*fork);
        }
        for (std::uint64_t k = 0; k < copies; ++k) {
          if (in) s.copy(device_destination.data() + k * bytes, host_source.data() + k * bytes, bytes);
          if (out) outward.copy(host_destination.data() + k * bytes, device_source.data() + k * bytes, bytes);
        }
        if (in && out) {
          d2h->record(*join);
          s.wait(*join);
        }
      };
      t.check = [&, in, out] {
        return checked("link.copy", (!in || run.checker.matches(*h2d, device_destination, host_seed)) &&
                                        (!out || run.checker.matches(*d2h, host_destination, device_seed)));
      };
      if (run.corrupts("copy_queue"))
        t.corrupt = [&, in] {
          if (in) run.corrupt_word(*h2d, device_destination);
          else run.corrupt_word(*d2h, host_destination);
        };
      Measurement m = time_on_device(run.backend, *h2d, run.config.bandwidth_repeat, t);
      for (double& s : m.seconds) s /= static_cast<double>(copies);
      Row row = make_row("copy_queue",
                         {{"device", device},
                          {"direction", direction},
                          {"bytes", as_param(bytes)},
                          {"copies per sample", as_param(copies)}},
                         Metric::rate, m, static_cast<double>(bytes) * (in && out ? 2 : 1));
      const double pcie = run.pcie_Bps(device);
      if (pcie > 0) {
        row.model = (in && out ? 2 : 1) * pcie;
        row.model_basis = run.pcie_basis(device) + (in && out ? ", both directions" : "");
      }
      const model::CopyTime time{bytes, row.stats().median};
      (in && out ? profile.queued_both_ways : in ? profile.queued_h2d : profile.queued_d2h).push_back(time);
      run.add(std::move(row));
    }
  }
}

}  // namespace ferry::link
