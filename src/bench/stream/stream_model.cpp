#include "bench/stream/stream_model.hpp"

#include <fmt/format.h>

#include "bench/stream/stream_designs.hpp"
#include "core/units.hpp"

#include <algorithm>
#include <vector>

namespace ferry::stream {
namespace {

struct Limit {
  double Bps;
  std::string what;
};

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

ChunkPath launch_copy_kernel_copy(const PathTerms& t) {
  return {.fixed_s = t.link.launch_and_sync_s,
          .moving_s = t.copies_s + t.chunk / t.compute_Bps,
          .what = "launch+sync, copy in, kernel, copy out",
          .host_calls = 3};
}

ChunkPath launch_kernel_per_stage(const PathTerms& t) {
  const double stages = t.config.stages;
  return {.fixed_s = t.link.launch_and_sync_s + (stages - 1) * t.link.launch_per_kernel_s,
          .moving_s = t.copies_s + t.chunk / t.compute_Bps,
          .what = fmt::format("launch+sync, {} more launches, copy in, {} kernels, copy out", t.config.stages - 1,
                              t.config.stages),
          .host_calls = stages + 2};
}

ChunkPath graph_launch(const PathTerms& t) {
  const model::DeviceProfile& p = t.link;
  if (p.graph_chunk_round_trip_s > 0) {
    // link timed this graph on a word: its launch, its nodes' and copies' fixed costs and the flag.
    return {.fixed_s = p.graph_chunk_round_trip_s,
            .moving_s = t.chunk / p.h2d_Bps + t.chunk / p.d2h_Bps + t.chunk / t.compute_Bps,
            .what = "graph launch -> flag seen (link), chunk copied in, computed, copied out",
            .host_calls = 1,
            .host_limit = "host: a graph launch per chunk"};
  }
  // An older profile: one launch, and its kernels start from the device (graph replay per kernel).
  return {.fixed_s = p.launch_per_kernel_s + 2 * p.graph_per_kernel_s,
          .moving_s = t.copies_s + t.chunk / t.compute_Bps,
          .what = "graph launch, copy in, kernel, copy out, flag",
          .host_calls = 1,
          .host_limit = "host: a graph launch per chunk"};
}

ChunkPath launch_on_mapped_memory(const PathTerms& t) {
  // The chunk's first read crosses PCIe, then its words stream through read, compute and write at once.
  return {.fixed_s = t.link.launch_and_sync_s + t.link.mapped_read_latency_s,
          .moving_s = std::max(t.chunk / t.both_ways_Bps, t.chunk / t.compute_Bps),
          .what = "launch+sync, a mapped read, chunk read and written at once",
          .host_calls = 1};
}

// The doorbell is seen; then as zerocopy, without the launch.
ChunkPath doorbell_through_stage_roles(const PathTerms& t) {
  return {.fixed_s = t.link.flag_round_trip_s + t.link.mapped_read_latency_s,
          .moving_s = std::max(t.chunk / t.both_ways_Bps, t.chunk / t.compute_Bps),
          .what = fmt::format("flag round trip, a mapped read, chunk through {} stage roles", t.config.stages)};
}

ChunkPath doorbell_through_all_stages(const PathTerms& t) {
  return {.fixed_s = t.link.flag_round_trip_s + t.link.mapped_read_latency_s,
          .moving_s = std::max(t.chunk / t.both_ways_Bps, t.chunk / t.compute_Bps),
          .what = "flag round trip, a mapped read, chunk read, computed and written at once"};
}

Prediction predict(const Point& point, const StreamConfig& config, const Ceilings& ceilings) {
  const model::DeviceProfile& p = ceilings.link;
  const double chunk = static_cast<double>(std::min(point.chunk_bytes, config.total_bytes));
  const double stages = config.stages;
  const DesignInfo& design = design_info(point.design);
  const bool engine = design.copies_by_engine;
  const double compute_Bps = design.stage_at_a_time ? ceilings.stage_compute_Bps / stages : ceilings.fused_compute_Bps;

  std::vector<double> needed = {compute_Bps, design.launched_once ? p.flag_round_trip_s : p.launch_and_sync_s};
  if (engine) needed.insert(needed.end(), {p.h2d_Bps, p.d2h_Bps, p.bidirectional_Bps});
  else needed.insert(needed.end(), {p.zero_copy_read_Bps, p.zero_copy_write_Bps, p.bidirectional_Bps});
  if (std::any_of(needed.begin(), needed.end(), [](double v) { return !(v > 0); }))
    return {};  // the profile lacks a figure

  const double in_flight = point.depth * chunk;
  const Limit both_ways = link_both_ways(p, engine, chunk);
  const double copies_s =
      p.copy_engine_latency_h2d_s + p.copy_engine_latency_d2h_s + chunk / p.h2d_Bps + chunk / p.d2h_Bps;
  const ChunkPath path = design.path({.link = p,
                                      .config = config,
                                      .chunk = chunk,
                                      .compute_Bps = compute_Bps,
                                      .both_ways_Bps = both_ways.Bps,
                                      .copies_s = copies_s});

  std::vector<Limit> limits = {both_ways, {compute_Bps, "compute"}};
  if (path.host_calls > 0 && p.launch_per_kernel_s > 0)
    limits.push_back(
        {chunk / (path.host_calls * p.launch_per_kernel_s),
         path.host_limit.empty() ? fmt::format("host: {:g} calls per chunk", path.host_calls) : path.host_limit});
  const Limit ceiling =
      *std::min_element(limits.begin(), limits.end(), [](const Limit& a, const Limit& b) { return a.Bps < b.Bps; });

  Prediction out;
  out.path_s = path.fixed_s + path.moving_s;
  out.ceiling_Bps = ceiling.Bps;
  out.ceiling_basis = ceiling.what;
  // Little's law: with depth chunks in flight, a chunk waits behind the others.
  const double queued_s = in_flight / ceiling.Bps;
  if (queued_s > out.path_s) {
    out.latency_s = queued_s;
    out.latency_basis = fmt::format("depth {} x chunk / {}", point.depth, ceiling.what);
  } else {
    out.latency_s = out.path_s;
    out.latency_basis = path.what;
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
