// `ferry run overlap`: the kernel's own rate, then the vector add on the host,
// serially on the device and pipelined over the k sweep, each beside its model.
#include "bench/overlap/overlap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/overlap/overlap_bench.hpp"
#include "bench/overlap/overlap_model.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::overlap {
namespace {

Params config_params(const OverlapConfig& c) {
  return {
      {"device", c.device},
      {"elements", static_cast<std::int64_t>(c.elements)},
      {"vector_bytes", static_cast<std::int64_t>(c.vector_bytes())},
      {"splits", join(c.splits, ",", [](int k) { return std::to_string(k); })},
      {"min_split_bytes", static_cast<std::int64_t>(c.min_split_bytes)},
      {"host", std::string(to_string(c.host))},
      {"streams", c.streams},
      {"iterations", c.iterations},
  };
}

std::vector<Section> sections(const OverlapConfig& c) {
  return {
      {"kernel", "The add alone on device-resident vectors, CUDA events (memory traffic: a and b read, c written)"},
      {"variants",
       fmt::format("c = a + b over {} words ({} a vector, {} host memory): host wall time from the first "
                   "copy enqueued to c in host memory, after a warm-up (model: serial = its steps one after "
                   "another; pipelined = a lower bound)",
                   c.elements, format_bytes(c.vector_bytes()), std::string(to_string(c.host)))},
      {"summary", "The seed's table: serial against pipelined at its best k (median us = pipelined)"},
  };
}

Rates rates_of(const model::DeviceProfile& p, const OverlapConfig& c, double kernel_Bps) {
  const bool pinned = c.host == MemoryKind::pinned;
  return {.h2d_Bps = pinned ? p.h2d_Bps : p.pageable_h2d_Bps,
          .d2h_Bps = pinned ? p.d2h_Bps : p.pageable_d2h_Bps,
          .bidirectional_Bps = pinned ? p.bidirectional_Bps : 0,
          .kernel_Bps = kernel_Bps,
          .copy_latency_s = std::max(p.copy_engine_latency_h2d_s, p.copy_engine_latency_d2h_s)};
}

Row variant_row(const std::string& variant, const Measurement& m, Params more) {
  Row row;
  row.section = "variants";
  row.params = {{"variant", variant}};
  row.params.insert(row.params.end(), more.begin(), more.end());
  row.metric = Metric::latency;
  row.set_samples(m.seconds);
  row.check = m.check;
  return row;
}

void set_model(Row& row, const Prediction& p) {
  if (!(p.seconds > 0) || !std::isfinite(p.seconds)) return;
  row.model = p.seconds;
  row.model_basis = p.basis;
}

std::string ratio(double x) { return fmt::format("{:.2f}x", x); }

// "1.52x faster than" or "1.30x slower than": how `other_s` compares with `s`.
std::string compared(double s, double other_s) {
  return s <= other_s ? fmt::format("{:.2f}x faster than", other_s / s)
                      : fmt::format("{:.2f}x slower than", s / other_s);
}

}  // namespace

OverlapOutcome run(Backend& backend, const OverlapConfig& config, const model::DeviceProfile& profile,
                   const Progress& progress) {
  validate(backend, config);
  OverlapOutcome out;
  WorkloadResult& result = out.result;
  result.workload = "overlap";
  result.config = config_params(config);
  result.sections = sections(config);

  progress.expect(plan_run(config).steps.size());
  progress.step(fmt::format("filling a and b ({} each)", format_bytes(config.vector_bytes())));
  OverlapBench bench(backend, config);

  progress.step("the add alone");
  const Measurement kernel = bench.kernel_alone();
  const double kernel_Bps = static_cast<double>(config.vector_bytes()) / summarize(kernel.seconds).median;
  {
    Row row;
    row.section = "kernel";
    row.params = {{"kernel", std::string("c = a + b")},
                  {"vector bytes", static_cast<std::int64_t>(config.vector_bytes())}};
    row.metric = Metric::rate;
    row.seconds = kernel.seconds;
    row.bytes_per_sample = 3.0 * static_cast<double>(config.vector_bytes());
    row.check = kernel.check;
    if (profile.device_copy_Bps > 0) {
      row.model = 2 * profile.device_copy_Bps;  // a device copy reads and writes each byte it copies
      row.model_basis = "device copy (link), counted as memory traffic";
    }
    result.rows.push_back(std::move(row));
    progress.keep_rows(result);
  }
  const Rates rates = rates_of(profile, config, kernel_Bps);

  progress.step("cpu: the host adds the vectors on all cores");
  const Measurement cpu = bench.cpu();
  progress.step("serial: H2D a and b, add, D2H c");
  const Measurement serial = bench.serial();
  const std::int64_t vector_bytes = static_cast<std::int64_t>(config.vector_bytes());
  result.rows.push_back(
      variant_row("cpu", cpu, {{"splits", "-"}, {"sub-buffers", "-"}, {"sub-buffer bytes", "-"}, {"streams", "-"}}));
  result.rows.push_back(variant_row(
      "serial", serial, {{"splits", "-"}, {"sub-buffers", 1}, {"sub-buffer bytes", vector_bytes}, {"streams", 1}}));
  set_model(result.rows.back(), serial_time(config.vector_bytes(), rates));
  const std::size_t serial_row = result.rows.size() - 1, cpu_row = serial_row - 1;
  progress.keep_rows(result);

  struct Pipelined {
    Split split;
    std::size_t row;
  };
  std::vector<Pipelined> measured;
  for (int k : config.splits) {
    Split split = split_vector(config.elements, k, config.min_split_bytes);
    const auto same = std::find_if(measured.begin(), measured.end(),
                                   [&](const Pipelined& p) { return p.split.parts.size() == split.parts.size(); });
    if (split.clamped)
      result.notes.push_back(fmt::format("k = {}: sub-buffers would be under the {} floor (--min-split); clamped to {}",
                                         k, format_bytes(config.min_split_bytes), split.parts.size()));
    if (same != measured.end()) {
      result.notes.push_back(fmt::format("k = {} gives the same {} sub-buffers as k = {}: measured once", k,
                                         split.parts.size(), same->split.requested));
      continue;
    }
    progress.step(fmt::format("pipelined, k = {}: {} sub-buffers of {}", k, split.parts.size(),
                              format_bytes(split.parts.front().count * 4)));
    const Measurement m = bench.pipelined(split);
    const auto streams = static_cast<std::int64_t>(std::min<std::size_t>(config.streams, split.parts.size()));
    result.rows.push_back(variant_row("pipelined", m,
                                      {{"splits", k},
                                       {"sub-buffers", static_cast<std::int64_t>(split.parts.size())},
                                       {"sub-buffer bytes", static_cast<std::int64_t>(split.parts.front().count * 4)},
                                       {"streams", streams}}));
    set_model(result.rows.back(), pipelined_bound(config.vector_bytes(), split, rates));
    measured.push_back({std::move(split), result.rows.size() - 1});
    progress.keep_rows(result);
  }

  const double serial_s = result.rows[serial_row].value(), cpu_s = result.rows[cpu_row].value();
  for (std::size_t i = cpu_row; i < result.rows.size(); ++i) {
    Row& row = result.rows[i];
    row.params.push_back({"speedup vs serial", ratio(serial_s / row.value())});
    row.params.push_back({"speedup vs cpu", ratio(cpu_s / row.value())});
  }

  if (measured.empty()) return out;
  const Pipelined& best =
      *std::min_element(measured.begin(), measured.end(), [&](const Pipelined& x, const Pipelined& y) {
        return result.rows[x.row].value() < result.rows[y.row].value();
      });
  const Row best_row = result.rows[best.row];  // a copy: the summary row below may move the rows
  Row summary = best_row;
  summary.section = "summary";
  summary.model.reset();
  summary.params = {{"operation", std::string("vector add on the device, copies included")},
                    {"serial us", fmt::format("{:.1f}", to_us(serial_s))},
                    {"best k", best.split.requested},
                    {"delta us", fmt::format("{:+.1f}", to_us(best_row.value() - serial_s))},
                    {"speedup", ratio(serial_s / best_row.value())}};
  result.rows.push_back(std::move(summary));

  const std::string against_model =
      best_row.model
          ? fmt::format("{:.3f}x the model bound ({:.2f} ms, {}; rates {})", best_row.value() / *best_row.model,
                        *best_row.model * 1e3, best_row.model_basis, config.profile_origin)
          : fmt::format("no model: the profile has no {} copy rates", to_string(config.host));
  result.notes.push_back(fmt::format("best pipelined: k = {} ({} sub-buffers on {} streams): {:.2f} ms, {}; {} serial "
                                     "({:.2f} ms) and {} the cpu ({:.2f} ms)",
                                     best.split.requested, best.split.parts.size(),
                                     std::min<std::size_t>(config.streams, best.split.parts.size()),
                                     best_row.value() * 1e3, against_model, compared(best_row.value(), serial_s),
                                     serial_s * 1e3, compared(best_row.value(), cpu_s), cpu_s * 1e3));
  if (const double shared_s = shared_link_time(config.vector_bytes(), rates); shared_s > 0)
    result.notes.push_back(fmt::format(
        "best pipelined: {:.3f}x the shared-link time ({:.2f} ms: while c returns, each direction moves half of "
        "link's both-ways {:.2f} GB/s, then a and b's rest comes in alone at H2D; a prediction, not a bound)",
        best_row.value() / shared_s, shared_s * 1e3, rates.bidirectional_Bps / 1e9));
  if (!backend.capabilities().gpu_timings)
    result.notes.push_back("emulator: every word is checked as on a GPU, but the timings are CPU timings");

  if (config.want_trace) {
    progress.step("trace: one more pipelined run at the best k, an event around every step");
    out.trace = bench.trace(best.split);
  }
  return out;
}

}  // namespace ferry::overlap
