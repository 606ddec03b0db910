// `ferry run dispatch`: per key count, the copies alone, then each rung of the
// ladder, each beside its model, then the best rung against the baseline.
#include "bench/dispatch/dispatch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "bench/dispatch/dispatch_model.hpp"
#include "bench/dispatch/sort_bench.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::dispatch {
namespace {

Params config_params(const DispatchConfig& c) {
  return {
      {"device", c.device},
      {"keys", join(c.keys, ",", [](std::uint64_t k) { return std::to_string(k); })},
      {"rungs", join(c.rungs, ",", [](Rung r) { return std::string(plan(r).name); })},
      {"tile", static_cast<std::int64_t>(c.tile)},
      {"iterations", c.iterations},
  };
}

std::vector<Section> sections() {
  return {
      {"copies", "The keys' H2D then D2H alone, what every rung also moves: host wall time, every key checked"},
      {"ladder", "Bitonic sort, one iteration = H2D + sort + D2H (+zerocopy, +cluster, +resident: the sort alone, its "
                 "kernels reading and writing host memory): host wall time, median after a warm-up, fresh keys "
                 "every run checked against std::sort (model: kernels x launch cost + barriers x barrier cost + "
                 "copies + passes at device copy rate; per pass = (median - copies) / passes)"},
      {"summary", "Per key count, the best rung against the baseline (median us = the best rung)"},
  };
}

Row measured_row(const std::string& section, const Measurement& m, Params params) {
  Row row;
  row.section = section;
  row.params = std::move(params);
  row.metric = Metric::latency;
  row.set_samples(m.seconds);
  row.check = m.check;
  return row;
}

std::string us(double seconds) { return fmt::format("{:.2f}", to_us(seconds)); }
std::string ratio(double x) { return fmt::format("{:.2f}x", x); }
std::string figure_us(double seconds) { return seconds > 0 ? us(seconds) + " us" : "not measured"; }

struct LadderRow {
  Rung rung;
  std::size_t row;
  std::optional<RungModel> model;
};

// Delta to the rung above, cost per pass beyond the copies, and the speedup over the baseline.
void annotate_ladder(WorkloadResult& result, const std::vector<LadderRow>& ladder,
                     const std::map<MemoryKind, double>& copies_s, std::size_t passes) {
  const auto baseline =
      std::find_if(ladder.begin(), ladder.end(), [](const LadderRow& l) { return l.rung == Rung::baseline; });
  const double baseline_s = baseline == ladder.end() ? 0 : result.rows[baseline->row].value();
  for (std::size_t i = 0; i < ladder.size(); ++i) {
    Row& row = result.rows[ladder[i].row];
    const double s = row.value();
    row.params.push_back(
        {"delta us", i == 0 ? "-" : fmt::format("{:+.2f}", to_us(s - result.rows[ladder[i - 1].row].value()))});
    const RungPlan& p = plan(ladder[i].rung);
    const auto copies = copies_s.find(p.host);
    const double sort_s = p.zero_copy                ? s
                          : copies == copies_s.end() ? -1
                                                     : s - copies->second;  // +zerocopy has no copies
    row.params.push_back({"per pass us", sort_s < 0 ? "-" : us(sort_s / static_cast<double>(passes))});
    row.params.push_back({"vs baseline", baseline_s > 0 ? ratio(baseline_s / s) : "-"});
  }
}

}  // namespace

WorkloadResult run(Backend& backend, const DispatchConfig& config, const model::DeviceProfile& profile,
                   const Progress& progress) {
  validate(backend, config);
  WorkloadResult result;
  result.workload = "dispatch";
  result.config = config_params(config);
  result.sections = sections();
  const Capabilities capabilities = backend.capabilities();
  const DeviceFeatures features = backend.device_features(config.device);
  progress.expect(plan_run(config, capabilities, features).steps.size());

  // The test hook corrupts one sample of the run: its row's first, at the first key count the row runs.
  std::string to_corrupt = config.corrupt_row;
  const auto first_sample = [&](const std::string& row) {
    if (row != to_corrupt) return FirstSample::as_run;
    to_corrupt.clear();
    return FirstSample::corrupted;
  };

  for (const std::uint64_t keys : config.keys) {
    SortBench bench(backend, config.device, keys, config.tile, config.iterations);
    const auto passes = static_cast<std::int64_t>(bench.passes());
    const std::int64_t key_bytes = static_cast<std::int64_t>(keys * 4);

    std::map<MemoryKind, double> copies_s;
    for (MemoryKind host : {MemoryKind::pageable, MemoryKind::pinned}) {
      if (!config.uses(host)) continue;
      progress.step(fmt::format("{} keys: {} copies alone", keys, to_string(host)));
      result.rows.push_back(measured_row("copies", bench.copies(host, first_sample(copies_row_name(host))),
                                         {{"keys", static_cast<std::int64_t>(keys)},
                                          {"key bytes", key_bytes},
                                          {"host", std::string(to_string(host))}}));
      copies_s[host] = result.rows.back().value();
      progress.keep_rows(result);
    }

    std::vector<LadderRow> ladder;
    for (const Rung rung : config.rungs) {
      const RungPlan& p = plan(rung);
      if (const std::string why = unavailable_reason(rung, keys, config.tile, capabilities, features); !why.empty()) {
        result.skipped.push_back(fmt::format("{} keys, {}: {}", keys, p.name, why));
        continue;
      }
      progress.step(fmt::format("{} keys, {}: {}", keys, p.name, p.change));
      const Dispatches dispatches = bench.dispatches(rung);
      Row row = measured_row("ladder", bench.rung(rung, first_sample(std::string(p.name))),
                             {{"keys", static_cast<std::int64_t>(keys)},
                              {"rung", std::string(p.name)},
                              {"kernels", static_cast<std::int64_t>(dispatches.kernels)},
                              {"barriers", static_cast<std::int64_t>(dispatches.barriers)},
                              {"host", std::string(to_string(p.host))}});
      std::optional<RungModel> model = model_rung(p, keys, dispatches, profile);
      if (model) {
        row.model = model->seconds();
        row.model_basis = model->basis;
      }
      result.rows.push_back(std::move(row));
      ladder.push_back({rung, result.rows.size() - 1, std::move(model)});
      progress.keep_rows(result);
    }
    if (ladder.empty()) continue;
    annotate_ladder(result, ladder, copies_s, bench.passes());
    auto ran = [&](auto has) {
      return std::any_of(ladder.begin(), ladder.end(), [&](const LadderRow& l) { return has(plan(l.rung)); });
    };
    if (ran([](const RungPlan& p) { return p.fused; }))
      result.notes.push_back(
          bench.fused_steps() == 1
              ? fmt::format("{} keys in tiles of {}: one step, every tile sorted on chip instead of {} "
                            "passes",
                            keys, bench.tile(), passes)
              : fmt::format("{} keys in tiles of {}: {} steps instead of {} passes (the first sorts each "
                            "tile on chip; each longer stage is its long passes, three to a step, then the "
                            "rest on chip)",
                            keys, bench.tile(), bench.fused_steps(), passes));
    if (ran([](const RungPlan& p) { return p.persistent; }))
      result.notes.push_back(fmt::format("{} keys, +persistent: {} team{}, all resident, a grid barrier between steps",
                                         keys, bench.persistent_teams(), bench.persistent_teams() == 1 ? "" : "s"));
    if (ran([](const RungPlan& p) { return p.cluster; }))
      result.notes.push_back(
          fmt::format("{} keys, +cluster and +resident: one cluster of {} team{} holding a tile each", keys,
                      keys / bench.tile(), keys == bench.tile() ? "" : "s"));

    const LadderRow& best =
        *std::min_element(ladder.begin(), ladder.end(), [&](const LadderRow& a, const LadderRow& b) {
          return result.rows[a.row].value() < result.rows[b.row].value();
        });
    const LadderRow& first = ladder.front();
    Row summary = result.rows[best.row];  // a copy: the push below may move the rows
    const double best_s = summary.value(), first_s = result.rows[first.row].value();
    summary.section = "summary";
    summary.model.reset();
    summary.model_basis.clear();
    const std::string share =
        first.model ? fmt::format("{:.0f}%", 100 * first.model->dispatch_s / first.model->seconds()) : "-";
    summary.params = {{"keys", static_cast<std::int64_t>(keys)},
                      {"passes", passes},
                      {"first rung", std::string(plan(first.rung).name)},
                      {"first us", us(first_s)},
                      {"dispatch share of first (model)", share},
                      {"best rung", std::string(plan(best.rung).name)},
                      {"speedup", ratio(first_s / best_s)}};
    result.rows.push_back(std::move(summary));
    result.notes.push_back(fmt::format("{} keys: best rung {} at {} us, {} faster than {} ({} us)", keys,
                                       plan(best.rung).name, us(best_s), ratio(first_s / best_s), plan(first.rung).name,
                                       us(first_s)));
  }

  if (profile.graph_per_kernel_s > 0)
    result.notes.push_back(fmt::format(
        "dispatch costs per kernel ({}, empty kernels): launch + sync {} us, stream launch {} "
        "us, graph replay {} us, with programmatic edges {}; kernels that read what the "
        "one before wrote {} and {}; a grid barrier {}, a cluster barrier {}",
        config.profile_origin, us(profile.launch_and_sync_s), us(profile.launch_per_kernel_s),
        us(profile.graph_per_kernel_s), figure_us(profile.programmatic_graph_per_kernel_s),
        figure_us(profile.dependent_graph_per_kernel_s), figure_us(profile.dependent_programmatic_graph_per_kernel_s),
        figure_us(profile.grid_barrier_s), figure_us(profile.cluster_barrier_s)));
  if (!capabilities.gpu_timings)
    result.notes.push_back("emulator: every key is checked as on a GPU, but the timings are CPU timings");
  return result;
}

}  // namespace ferry::dispatch
