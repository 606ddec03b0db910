#include "bench/stream/stream_model.hpp"

#include <fmt/format.h>

#include "core/units.hpp"

#include <algorithm>
#include <vector>

namespace ferry::stream {
namespace {

struct Limit {
  double Bps;
  std::string what;
};

bool copies_by_engine(Design d) {
  return d == Design::offload || d == Design::chunked || d == Design::pipeline || d == Design::graph;
}

// Per direction, both directions at once. Copy engines: queued copies of this
// chunk size when link measured them (the per-copy cost of small chunks
// shows), else the large-copy rates. SMs: a kernel reading host memory while
// writing it, else the least of the one-way zero-copy rates and bidir/2.
Limit link_both_ways(const model::DeviceProfile& p, bool engine, double chunk) {
  if (engine) {
    const double pair_s = model::seconds_at(p.queued_both_ways, chunk);
    if (pair_s > 0) return {chunk / pair_s, "copies queued both ways at once, at this size"};
    return {std::min({p.h2d_Bps, p.d2h_Bps, p.bidirectional_Bps / 2}), "PCIe both ways (bidir/2)"};
  }
  if (p.zero_copy_both_Bps > 0) return {p.zero_copy_both_Bps, "zero-copy read while writing"};
  return {std::min({p.zero_copy_read_Bps, p.zero_copy_write_Bps, p.bidirectional_Bps / 2}),
          "zero-copy read, write or bidir/2"};
}

}  // namespace

Prediction predict(const Point& point, const StreamConfig& config, const Ceilings& ceilings) {
  const model::DeviceProfile& p = ceilings.link;
  const double chunk = static_cast<double>(std::min(point.chunk_bytes, config.total_bytes));
  const double stages = config.stages;
  const Design design = point.design;
  const bool engine = copies_by_engine(design);
  const bool one_kernel = design != Design::pipeline && design != Design::persistent;
  const double compute_Bps = one_kernel ? ceilings.fused_compute_Bps : ceilings.stage_compute_Bps / stages;
  const bool by_flag = design == Design::persistent || design == Design::fused || design == Design::pool;

  std::vector<double> needed = {compute_Bps, by_flag ? p.flag_round_trip_s : p.launch_and_sync_s};
  if (engine) needed.insert(needed.end(), {p.h2d_Bps, p.d2h_Bps, p.bidirectional_Bps});
  else needed.insert(needed.end(), {p.zero_copy_read_Bps, p.zero_copy_write_Bps, p.bidirectional_Bps});
  if (std::any_of(needed.begin(), needed.end(), [](double v) { return !(v > 0); })) return {};  // the profile lacks a figure

  const double in_flight = point.depth * chunk;
  const Limit both_ways = link_both_ways(p, engine, chunk);
  const double copies_s = p.copy_engine_latency_h2d_s + p.copy_engine_latency_d2h_s + chunk / p.h2d_Bps + chunk / p.d2h_Bps;
  double fixed_s = 0, moving_s = 0, host_calls = 0;
  std::string path;
  switch (design) {
    case Design::offload:
    case Design::chunked:
      fixed_s = p.launch_and_sync_s;
      moving_s = copies_s + chunk / compute_Bps;
      path = "launch+sync, copy in, kernel, copy out";
      host_calls = 3;
      break;
    case Design::pipeline:
      fixed_s = p.launch_and_sync_s + (stages - 1) * p.launch_per_kernel_s;
      moving_s = copies_s + chunk / compute_Bps;
      path = fmt::format("launch+sync, {} more launches, copy in, {} kernels, copy out", config.stages - 1, config.stages);
      host_calls = stages + 2;
      break;
    case Design::graph:
      host_calls = 1;
      if (p.graph_chunk_round_trip_s > 0) {
        // link timed this graph on a word: its launch, its nodes' and copies' fixed costs and the flag.
        fixed_s = p.graph_chunk_round_trip_s;
        moving_s = chunk / p.h2d_Bps + chunk / p.d2h_Bps + chunk / compute_Bps;
        path = "graph launch -> flag seen (link), chunk copied in, computed, copied out";
        break;
      }
      // An older profile: one launch, and its kernels start from the device (graph replay per kernel).
      fixed_s = p.launch_per_kernel_s + 2 * p.graph_per_kernel_s;
      moving_s = copies_s + chunk / compute_Bps;
      path = "graph launch, copy in, kernel, copy out, flag";
      break;
    case Design::zerocopy:
      // The chunk's first read crosses PCIe, then its words stream through read, compute and write at once.
      fixed_s = p.launch_and_sync_s + p.mapped_read_latency_s;
      moving_s = std::max(chunk / both_ways.Bps, chunk / compute_Bps);
      path = "launch+sync, a mapped read, chunk read and written at once";
      host_calls = 1;
      break;
    case Design::persistent:
    case Design::fused:
    case Design::pool:
      // The doorbell is seen; then as zerocopy, without the launch.
      fixed_s = p.flag_round_trip_s + p.mapped_read_latency_s;
      moving_s = std::max(chunk / both_ways.Bps, chunk / compute_Bps);
      path = design == Design::persistent
                 ? fmt::format("flag round trip, a mapped read, chunk through {} stage roles", config.stages)
                 : "flag round trip, a mapped read, chunk read, computed and written at once";
      break;
  }

  std::vector<Limit> limits = {both_ways, {compute_Bps, "compute"}};
  if (host_calls > 0 && p.launch_per_kernel_s > 0)
    limits.push_back({chunk / (host_calls * p.launch_per_kernel_s),
                      design == Design::graph ? "host: a graph launch per chunk"
                                              : fmt::format("host: {:g} calls per chunk", host_calls)});
  const Limit ceiling = *std::min_element(limits.begin(), limits.end(), [](const Limit& a, const Limit& b) { return a.Bps < b.Bps; });

  Prediction out;
  out.path_s = fixed_s + moving_s;
  out.ceiling_Bps = ceiling.Bps;
  out.ceiling_basis = ceiling.what;
  // Little's law: with depth chunks in flight, a chunk waits behind the others.
  const double queued_s = in_flight / ceiling.Bps;
  if (queued_s > out.path_s) {
    out.latency_s = queued_s;
    out.latency_basis = fmt::format("depth {} x chunk / {}", point.depth, ceiling.what);
  } else {
    out.latency_s = out.path_s;
    out.latency_basis = path;
  }
  if (in_flight / out.path_s < ceiling.Bps) {
    out.throughput_Bps = in_flight / out.path_s;
    out.throughput_basis = fmt::format("depth {} x chunk / its path", point.depth);
  } else {
    out.throughput_Bps = ceiling.Bps;
    out.throughput_basis = ceiling.what;
  }
  return out;
}

LatencyCeiling sm_ceiling_within(const model::DeviceProfile& link, double latency_s) {
  constexpr int waits = 3;  // doorbell, reads, write drain
  LatencyCeiling best;
  if (link.zero_copy_under_load.empty()) best.missing = "zero-copy figures under load";
  for (const model::LoadedLink& l : link.zero_copy_under_load)
    if (waits * l.read_round_trip_s <= latency_s && l.Bps > best.Bps) {
      best.Bps = l.Bps;
      best.basis = fmt::format("{} teams streaming both ways; {} x a read's round trip meanwhile ({:.2f} us) fits",
                               l.teams, waits, l.read_round_trip_s * 1e6);
    }
  return best;
}

LatencyCeiling engine_ceiling_within(const model::DeviceProfile& link, double latency_s) {
  LatencyCeiling best;
  if (link.queued_both_ways.empty()) best.missing = "copies queued both ways";
  for (const model::CopyTime& pair : link.queued_both_ways) {
    const double Bps = static_cast<double>(pair.bytes) / pair.seconds;
    if (pair.seconds > 0 && 2 * pair.seconds <= latency_s && Bps > best.Bps) {
      best.Bps = Bps;
      best.basis = fmt::format("copies of {} queued both ways; in then out, {:.2f} us, fits", format_bytes(pair.bytes),
                               2 * pair.seconds * 1e6);
    }
  }
  return best;
}

}  // namespace ferry::stream
