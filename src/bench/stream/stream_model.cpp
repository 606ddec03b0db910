#include "bench/stream/stream_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace ferry::stream {
namespace {

struct Limit {
  double Bps;
  std::string what;
};

Limit tightest(const std::vector<Limit>& limits) {
  return *std::min_element(limits.begin(), limits.end(), [](const Limit& a, const Limit& b) { return a.Bps < b.Bps; });
}

bool copies_by_engine(Design d) { return d == Design::offload || d == Design::chunked || d == Design::pipeline; }

}  // namespace

Prediction predict(const Point& point, const StreamConfig& config, const Ceilings& ceilings) {
  const model::DeviceProfile& p = ceilings.link;
  const double chunk = static_cast<double>(std::min(point.chunk_bytes, config.total_bytes));
  const double stages = config.stages;
  const Design design = point.design;
  const bool fused = design != Design::pipeline && design != Design::persistent;
  const double compute_Bps = fused ? ceilings.fused_compute_Bps : ceilings.stage_compute_Bps / stages;

  const std::vector<double> needed =
      copies_by_engine(design)
          ? std::vector<double>{p.h2d_Bps, p.d2h_Bps, p.bidirectional_Bps, compute_Bps, p.launch_and_sync_s}
          : std::vector<double>{p.zero_copy_read_Bps, p.zero_copy_write_Bps, p.bidirectional_Bps, compute_Bps,
                                design == Design::persistent ? p.flag_round_trip_s : p.launch_and_sync_s};
  if (std::any_of(needed.begin(), needed.end(), [](double v) { return !(v > 0); })) return {};  // the profile lacks a figure

  Prediction out;
  double fixed_s = 0, moving_s = 0;
  Limit link;
  double host_calls = 0;
  switch (design) {
    case Design::offload:
    case Design::chunked:
      fixed_s = p.launch_and_sync_s + p.copy_engine_latency_h2d_s + p.copy_engine_latency_d2h_s;
      moving_s = chunk / p.h2d_Bps + chunk / compute_Bps + chunk / p.d2h_Bps;
      out.latency_basis = "launch+sync, 2 copy latencies, chunk/H2D + kernel + chunk/D2H";
      host_calls = 3;
      break;
    case Design::pipeline:
      fixed_s = p.launch_and_sync_s + (stages - 1) * p.launch_per_kernel_s + p.copy_engine_latency_h2d_s +
                p.copy_engine_latency_d2h_s;
      moving_s = chunk / p.h2d_Bps + chunk / compute_Bps + chunk / p.d2h_Bps;
      out.latency_basis = fmt::format("launch+sync, {} more launches, 2 copy latencies, chunk/H2D + {} kernels + chunk/D2H",
                                      config.stages - 1, config.stages);
      host_calls = stages + 2;
      break;
    case Design::zerocopy: {
      fixed_s = p.launch_and_sync_s;
      const double both_ways = std::min({p.zero_copy_read_Bps, p.zero_copy_write_Bps, p.bidirectional_Bps / 2});
      moving_s = std::max(chunk / both_ways, chunk / compute_Bps);
      out.latency_basis = "launch+sync, chunk read and written through mapped memory at once";
      host_calls = 1;
      break;
    }
    case Design::persistent: {
      // The roles pass words on as they arrive (LL rings), so a chunk streams
      // through all of them at once: its time is that of the slowest rate.
      fixed_s = p.flag_round_trip_s;
      const double both_ways = std::min({p.zero_copy_read_Bps, p.zero_copy_write_Bps, p.bidirectional_Bps / 2});
      moving_s = std::max(chunk / both_ways, chunk / compute_Bps);
      out.latency_basis = fmt::format("flag round trip, chunk streamed through read, {} stages and write at once",
                                      config.stages);
      break;
    }
  }
  out.latency_s = fixed_s + moving_s;

  std::vector<Limit> limits;
  if (copies_by_engine(design)) {
    limits = {{p.h2d_Bps, "H2D"}, {p.d2h_Bps, "D2H"}, {p.bidirectional_Bps / 2, "PCIe both ways (bidir/2)"}};
  } else {
    limits = {{p.zero_copy_read_Bps, "zero-copy read"},
              {p.zero_copy_write_Bps, "zero-copy write"},
              {p.bidirectional_Bps / 2, "PCIe both ways (bidir/2)"}};
  }
  limits.push_back({compute_Bps, "compute"});
  if (host_calls > 0 && p.launch_per_kernel_s > 0)
    limits.push_back({chunk / (host_calls * p.launch_per_kernel_s), fmt::format("host: {:g} calls per chunk", host_calls)});
  limits.push_back({point.depth * chunk / out.latency_s, fmt::format("depth {} x chunk / latency", point.depth)});
  const Limit binding = tightest(limits);
  out.throughput_Bps = binding.Bps;
  out.throughput_basis = binding.what;
  return out;
}

}  // namespace ferry::stream
