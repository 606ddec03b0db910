// The sweep's points, each measured into its rows with the model beside them,
// and the compute ceilings the model needs.
#include <fmt/format.h>

#include <algorithm>

#include "bench/common/measure.hpp"
#include "bench/common/verify.hpp"
#include "bench/stream/stream_designs.hpp"
#include "bench/stream/stream_kernels.hpp"
#include "bench/stream/stream_model.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/units.hpp"

namespace ferry::stream {

namespace {

std::vector<Section> sweep_sections() {
  return {
      {"compute", "Compute ceiling: the stage kernels on device-resident data, CUDA events, input bytes per second"},
      {"latency", "Chunk latency: input ready in host memory -> output visible to the host, host steady clock, every "
                  "chunk of every pass (model: a lower bound)"},
      {"throughput", "Throughput: input bytes / wall time of the whole stream, first chunk ready -> last chunk "
                     "visible, one sample per pass (model: an upper bound)"},
  };
}

}  // namespace

std::string point_name(const Point& point) {
  const DesignInfo& design = design_info(point.design);
  if (design.whole_stream) return std::string(design.name);
  return fmt::format("{} at {} chunks, depth {}", design.name, format_bytes(point.chunk_bytes), point.depth);
}

std::vector<Point> points_of(const StreamConfig& config, const Capabilities& capabilities,
                             std::vector<std::string>& skipped) {
  std::vector<Point> points;
  for (Design d : config.designs) {
    const DesignInfo& design = design_info(d);
    if (design.mapped_memory && !capabilities.mapped_memory) {
      skipped.push_back(fmt::format("{}: the backend cannot map host memory into a device", design.name));
      continue;
    }
    if (design.graphs && !capabilities.graphs) {
      skipped.push_back(fmt::format("{}: the backend has no graphs", design.name));
      continue;
    }
    if (design.whole_stream) {
      points.push_back({d, config.total_bytes, 1});
      continue;
    }
    for (std::uint64_t chunk : config.chunk_bytes) {
      if (chunk > config.total_bytes)
        continue;  // only a default sweep reaches here with one; validate() rejects a chosen one
      for (int depth : config.depths) points.push_back({d, chunk, depth});
    }
  }
  return points;
}

MeasuredPoint point_rows(const Point& point, PointMeasurement m, const StreamConfig& config, const Prediction& model) {
  const Params params = {{"design", std::string(to_string(point.design))},
                         {"chunk bytes", static_cast<std::int64_t>(point.chunk_bytes)},
                         {"depth", point.depth}};
  const std::string wrong = m.check == Check::failed ? fmt::format("{} of {} words wrong", m.wrong_words,
                                                                   config.total_bytes / 4 * config.iterations)
                                                     : "";

  MeasuredPoint out{point, {}, {}};
  out.latency.section = "latency";
  out.latency.params = params;
  out.latency.metric = Metric::latency;
  out.latency.set_samples(std::move(m.latency_s));
  out.latency.check = m.check;
  out.latency.note = wrong;

  out.throughput.section = "throughput";
  out.throughput.params = params;
  out.throughput.metric = Metric::rate;
  out.throughput.seconds = std::move(m.wall_s);
  out.throughput.bytes_per_sample = static_cast<double>(config.total_bytes);
  out.throughput.check = m.check;
  out.throughput.note = wrong;

  if (model.latency_s > 0) {
    out.latency.model = model.latency_s;
    out.latency.model_basis = model.latency_basis;
    out.throughput.model = model.throughput_Bps;
    out.throughput.model_basis = model.throughput_basis;
  }
  return out;
}

namespace {

MeasuredPoint measure_point(StreamBench& bench, const Point& point, const StreamConfig& config,
                            const Ceilings& ceilings) {
  return point_rows(point, bench.measure(point), config, predict(point, config, ceilings));
}

// Times the stage kernels on device-resident data (rows into `result`) and
// joins them with the link profile.
Ceilings measure_ceilings(Backend& backend, const StreamConfig& config, const model::DeviceProfile& profile,
                          WorkloadResult& result) {
  const std::uint64_t bytes = std::min<std::uint64_t>(config.total_bytes, 256ull << 20);
  const std::uint64_t quads = bytes / quad_bytes;
  const int rounds = config.rounds_per_stage();
  auto stream = backend.make_stream(config.device);
  Buffer in = backend.allocate_device(config.device, bytes);
  Buffer out = backend.allocate_device(config.device, bytes);
  Buffer host = backend.allocate_host(MemoryKind::pinned, bytes);
  constexpr std::uint64_t seed = 0xC0FFEE;
  auto* words = host.as<std::uint32_t>();
  fill_input(words, bytes / 4, seed);
  stream->copy(in.data(), host.data(), bytes);
  stream->synchronize();

  // Out of place, so every sample computes from the same input and the last one can be checked.
  auto time_stages = [&](int stage_count) {
    const StageKernel kernel{in.as<const Quad>(), out.as<Quad>(), 0, stage_count, rounds};
    Trial trial{.prepare =
                    [&] {
                      stream->fill(out.data(), poison_byte, bytes);
                      stream->synchronize();
                    },
                .enqueue = [&](Stream& s) { launch_stages(s, kernel, quads); },
                .check =
                    [&] {
                      stream->copy(host.data(), out.data(), bytes);
                      stream->synchronize();
                      return wrong_outputs(words, bytes / 4, seed, stage_count, rounds) == 0;
                    }};
    Row row;
    row.section = "compute";
    row.params = {{"kernel",
                   stage_count == 1 ? std::string("one stage") : fmt::format("all {} stages in one", stage_count)},
                  {"bytes", static_cast<std::int64_t>(bytes)},
                  {"operations per byte", 0.5 * rounds * stage_count}};
    row.metric = Metric::rate;
    const Measurement m = time_on_device(backend, *stream, Repeat{2, 5, 20, 0.05}, trial);
    row.seconds = m.seconds;
    row.check = m.check;
    row.bytes_per_sample = static_cast<double>(bytes);
    if (profile.device_copy_Bps > 0) {
      row.model = profile.device_copy_Bps;
      row.model_basis = "device copy (link): the kernel reads and writes each byte once";
    }
    return row;
  };

  Ceilings c{.link = profile};
  Row fused = time_stages(config.stages);
  c.fused_compute_Bps = fused.value();
  result.rows.push_back(std::move(fused));
  if (config.stages > 1) {
    Row one = time_stages(1);
    c.stage_compute_Bps = one.value();
    result.rows.push_back(std::move(one));
  } else {
    c.stage_compute_Bps = c.fused_compute_Bps;
  }
  return c;
}

}  // namespace

Plan plan_run(const StreamConfig& config, const Capabilities& capabilities) {
  Plan p;
  const std::vector<Point> points = points_of(config, capabilities, p.skipped);
  const double ceiling_bytes = static_cast<double>(std::min<std::uint64_t>(config.total_bytes, 256ull << 20));
  const SampleWork stages{.device_bytes = 2 * ceiling_bytes * config.stages,
                          .host_bytes = 2 * ceiling_bytes,
                          .waits = 1};
  p.steps.push_back({.what = "compute ceiling of the stage kernels",
                     .repeat = {2, 5, 20, 0.05},
                     .sample = stages,
                     .setup_host_bytes = 2 * ceiling_bytes});
  if (config.stages > 1) p.steps.back().sample.device_bytes *= 1.0 + 1.0 / config.stages;  // and one stage alone
  const double total = static_cast<double>(config.total_bytes);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& point = points[i];
    const std::uint64_t chunks = (config.total_bytes + point.chunk_bytes - 1) / point.chunk_bytes;
    // A pass: the input filled, the output poisoned, every chunk in and out, the output checked;
    // each chunk's copies, kernels and the host's wait on it, `depth` chunks at once.
    const auto n = static_cast<double>(chunks);
    const bool launched_once = design_info(point.design).launched_once;
    p.steps.push_back({.what = fmt::format("[{}/{}] {}: {} chunks x {} passes", i + 1, points.size(), point_name(point),
                                           chunks, config.iterations),
                       .repeat = {0, config.iterations, config.iterations, 0},
                       .sample = {.link_bytes = 2 * total,
                                  .device_bytes = 2 * total * config.stages,
                                  .host_bytes = 3 * total,
                                  .waits = launched_once ? 1 : n / point.depth,
                                  .launches = launched_once ? 0 : n * (2 + config.stages),
                                  .handoffs = launched_once ? n : 0},
                       .setup_host_bytes = 3 * total});  // the untimed warm-up pass, at most
  }
  return p;
}

namespace {

// `result` with the rows of the points measured so far: every latency row, then every throughput row.
WorkloadResult with_points(WorkloadResult result, const std::vector<MeasuredPoint>& measured) {
  for (const auto& p : measured) result.rows.push_back(p.latency);
  for (const auto& p : measured) result.rows.push_back(p.throughput);
  return result;
}

}  // namespace

std::vector<MeasuredPoint> measure_sweep(Backend& backend, const Machine& machine, const StreamConfig& config,
                                         const model::DeviceProfile& profile, const Progress& progress,
                                         WorkloadResult& result) {
  for (Section s : sweep_sections()) result.sections.push_back(std::move(s));
  result.notes.push_back(fmt::format("model ceilings: {}", config.profile_origin));
  const std::vector<Point> points = points_of(config, backend.capabilities(), result.skipped);
  // The plan's steps are the run's: the ceiling, then a step per point, in order.
  const Plan plan = plan_run(config, backend.capabilities());
  progress.expect(plan.steps.size());
  progress.step(plan.steps.front().what);
  const Ceilings ceilings = measure_ceilings(backend, config, profile, result);
  StreamBench bench(backend, machine, config);

  progress.keep_rows(result);
  std::vector<MeasuredPoint> measured;
  for (std::size_t i = 0; i < points.size(); ++i) {
    progress.step(plan.steps[1 + i].what);
    measured.push_back(measure_point(bench, points[i], config, ceilings));
    progress.keep_rows_made_by([&] { return with_points(result, measured); });
  }
  result = with_points(std::move(result), measured);
  return measured;
}

}  // namespace ferry::stream
