#include "cli/workload.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "bench/stream/stream.hpp"
#include "cli/config_options.hpp"
#include "cli/run_options.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "run/driver.hpp"
#include "run/one_device_workload.hpp"

namespace ferry {
namespace {

// A stage does whole rounds, each a multiply and an add on a 4-byte word: 0.5
// operations per byte. A value between two multiples would run as another.
double parse_flops_per_byte(const std::string& text) {
  const double flops_per_byte = parse_positive_number(text, "--flops-per-byte");
  const double rounds = flops_per_byte * 2;
  if (rounds != std::floor(rounds))
    throw UsageError(fmt::format("--flops-per-byte {}: a stage does whole multiply-adds on 4-byte words, 0.5 "
                                 "operations per byte each, so give a multiple of 0.5 (0.5, 1, 1.5, ...)",
                                 text));
  return flops_per_byte;
}

struct StreamOptions {
  RunOptions run;
  ConfigOptions<stream::StreamConfig> config;
  std::string profile_path;
  std::string latency;     // tune only
  std::string throughput;  // tune only
};

// The depths `tune stream` searches unless told. Depths 3 and 6 as well: within
// a latency the best point's bytes in flight (depth x chunk) can fall between
// two powers of two of either. On an H100, within 20 us they lifted the best
// found from 18.6-19.0 GB/s to 21.5-22.1.
const std::vector<int> tune_depths = {1, 2, 3, 4, 6, 8};

// The chunk sizes `tune stream` searches on a GPU unless told: 16K:4M:x2 and
// the sizes halfway between (24K:3M:x2). Little's law puts a latency target's
// best point at a number of bytes in flight (depth x chunk), and at the same
// bytes a larger chunk moves more: on an H100 the pool moved 512 KiB x 3 at
// 39 GB/s and 256 KiB x 6 at 36-37, both about 40 us.
const std::vector<std::string_view> tune_chunk_ranges = {"16K:4M:x2", "24K:3M:x2"};
std::vector<std::uint64_t> tune_chunks() {
  std::vector<std::uint64_t> sizes;
  for (std::string_view range : tune_chunk_ranges) {
    const std::vector<std::uint64_t> some = parse_byte_range(range);
    sizes.insert(sizes.end(), some.begin(), some.end());
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

void add_stream_options(CLI::App& command, StreamOptions& o, bool tuning) {
  add_run_options(command, o.run);
  o.config.add(
      command, "--design",
      "offload, chunked, zerocopy, pipeline, persistent, graph, fused, pool, a comma list, or all (default all)",
      [](auto& c, const auto& text) {
        if (text == "all") return;
        c.designs.clear();
        for (std::string_view name : split(text, ',')) c.designs.push_back(stream::design_from_string(name));
      });
  o.config.add(command, "--total",
               tuning ? "bytes in the stream (default 256M on a GPU)"
                      : "bytes in the stream (default 1G on a GPU, 4M on the emulator)",
               [](auto& c, const auto& text) { c.total_bytes = parse_bytes(text); });
  o.config.add(command, "--chunks",
               tuning
                   ? fmt::format("chunk sizes to search (default {} on a GPU)", fmt::join(tune_chunk_ranges, " and "))
                   : "chunk sweep, e.g. 4K:64M:x4 (default) or 64K,1M",
               [](auto& c, const auto& text) {
                 c.chunk_bytes = parse_byte_range(text);
                 c.chunk_sweep_given = true;
               });
  o.config.add(command, "--depth",
               tuning ? fmt::format("depths to search (default {})", fmt::join(tune_depths, ","))
                      : "chunks in flight at once, or a list to sweep (default 4)",
               [](auto& c, const auto& text) {
                 c.depths.clear();
                 for (std::string_view d : split(text, ',')) c.depths.push_back(parse_positive_int(d, "--depth"));
               });
  o.config.add(command, "--stages", "kernels a chunk passes through in pipeline and persistent (default 3)",
               [](auto& c, const auto& text) { c.stages = parse_positive_int(text, "--stages"); });
  o.config.add(command, "--flops-per-byte",
               "integer operations per input byte per stage, in steps of 0.5 (default 1): small keeps compute "
               "negligible, large makes it dominate",
               [](auto& c, const auto& text) { c.flops_per_byte = parse_flops_per_byte(text); });
  o.config.add(command, "--iterations",
               tuning ? "timed passes over the stream per configuration (default 1)"
                      : "timed passes over the stream per configuration (default 3)",
               [](auto& c, const auto& text) { c.iterations = parse_positive_int(text, "--iterations"); });
  o.config.add(command, "--teams",
               "thread blocks of the persistent pipeline, each with every role, for a slice of every chunk (default: "
               "from the chunk)",
               [](auto& c, const auto& text) { c.persistent_teams = parse_positive_int(text, "--teams"); });
  o.config.add(command, "--timeout",
               "how long a wait may last before the run is called stuck (default 10s): a persistent, fused or pool "
               "team gives up after it and the host after twice it, naming who gave up",
               [](auto& c, const auto& text) { c.timeout_s = parse_timeout(text, "--timeout"); });
  add_ceilings_profile_option(command, o.profile_path);
}

stream::StreamConfig make_config(const Backend& backend, const StreamOptions& o, bool tuning) {
  stream::StreamConfig c = stream::StreamConfig::defaults(backend.capabilities(), o.run.quick);
  c.device = one_device(o.run, "stream");
  if (tuning) {
    c.iterations = 1;
    c.depths = tune_depths;
    if (backend.capabilities().gpu_timings) {
      c.total_bytes = 256ull << 20;
      c.chunk_bytes = tune_chunks();
    }
  }
  o.config.apply(c);
  if (const char* unseen = std::getenv(stream::unseen_flag_variable)) stream::parse_unseen_flag(unseen, c);
  if (const char* corrupt = std::getenv(corrupt_output_variable)) stream::parse_corrupt_output(corrupt, c);
  return c;
}

stream::Target make_target(const StreamOptions& o) {
  if (o.latency.empty() == o.throughput.empty())
    throw UsageError("give one target: --latency (e.g. 20us) or --throughput (e.g. 40GB/s)");
  stream::Target t;
  if (!o.latency.empty()) t.latency_s = parse_duration(o.latency);
  else t.throughput_Bps = parse_rate(o.throughput);
  return t;
}

int run_stream(const StreamOptions& o, bool tuning, const std::vector<std::string>& command_line, std::ostream& out) {
  // The target needs no device: a malformed one is refused before the backend starts, the rest before anything runs.
  const stream::Target target = tuning ? make_target(o) : stream::Target{};
  const Driver driver(o.run, command_line, out);
  Backend& backend = driver.backend();
  stream::StreamConfig config = make_config(backend, o, tuning);
  bool met = true;
  const OneDeviceWorkload workload{
      .name = tuning ? "tune stream" : "stream",
      .device = config.device,
      .profile_path = o.profile_path,
      .validate = [&] { stream::validate(backend, config); },
      .plan = [&] { return stream::plan_run(config, backend.capabilities()); },
      .run =
          [&](const Machine& machine, const LinkCeilings& ceilings, const Progress& progress) {
            config.profile_origin = ceilings.origin;
            if (!tuning) return stream::run(backend, machine, config, ceilings.device, progress);
            stream::TuneOutcome outcome = stream::tune(backend, machine, config, ceilings.device, target, progress);
            met = outcome.met;
            return std::move(outcome.result);
          },
  };
  const int code = run_one_device_workload(driver, workload);
  if (code == 0 && !met) return static_cast<int>(ExitCode::target_not_met);
  return code;
}

void add_stream_commands(const Commands& c) {
  auto o = std::make_shared<StreamOptions>();
  CLI::App* command = c.run.add_subcommand("stream");  // described by the declaration's summary
  command->footer(
      "A chunk's latency runs from its input being ready in host memory to its output being visible to the host "
      "(host steady clock); throughput is input bytes / wall time of the whole stream. The host keeps --depth chunks "
      "in flight and hands over the next as soon as one comes back. Every output word is checked against the host's "
      "own computation. Beside each figure, a model from link's ceilings: a latency lower bound and a throughput "
      "upper bound.");
  add_stream_options(*command, *o, false);
  c.on_chosen(*command, [o](const auto& command_line, auto& out) { return run_stream(*o, false, command_line, out); });

  auto t = std::make_shared<StreamOptions>();
  CLI::App* tuner =
      c.tune.add_subcommand("stream", "search design, chunk and depth for a latency or throughput target");
  tuner->footer(
      "Measures every design x chunk x depth (on a shorter stream than `run`) and prints the configuration that meets "
      "the target with the best other figure: with --latency the most throughput, with --throughput the least latency. "
      "Exit code 4 when every configuration passed but none met the target.");
  add_stream_options(*tuner, *t, true);
  tuner->add_option("--latency", t->latency, "target median chunk latency, e.g. 20us");
  tuner->add_option("--throughput", t->throughput, "target throughput, e.g. 40GB/s");
  c.on_chosen(*tuner, [t](const auto& command_line, auto& out) { return run_stream(*t, true, command_line, out); });
}

}  // namespace

// The declaration the build gathers into workloads() (cli/workload.hpp).
Workload stream_workload() {
  return {
      .name = "stream",
      .summary = "host <-> device streaming designs: how soon a chunk is back vs how fast the stream moves",
      .measures = "per-chunk latency (median, p99) and stream throughput of each design over a chunk sweep, each "
                  "output word verified, beside a model built from link's ceilings; `ferry tune stream` searches for "
                  "a latency or throughput target",
      .lists = {{"designs (--design)",
                 names_of(stream::all_designs(), [](stream::Design d) { return stream::to_string(d); })}},
      .add_commands = add_stream_commands,
  };
}

}  // namespace ferry
