// The defaults, and what a configuration may ask for.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "bench/stream/stream.hpp"
#include "bench/stream/stream_designs.hpp"
#include "bench/stream/stream_kernels.hpp"
#include "bench/stream/stream_run.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::stream {

StreamConfig StreamConfig::defaults(const Capabilities& capabilities, bool quick) {
  StreamConfig c;
  if (capabilities.gpu_timings) {
    c.total_bytes = quick ? 256ull << 20 : 1ull << 30;
    c.chunk_bytes = parse_byte_range(quick ? "4K:16M:x16" : "4K:64M:x4");
    c.warmup_chunks = 64;
  } else {
    // The emulator's copies and kernels are CPU loops: a small stream keeps a run to seconds.
    c.total_bytes = quick ? 1ull << 20 : 4ull << 20;
    c.chunk_bytes = parse_byte_range(quick ? "4K:256K:x8" : "4K:1M:x4");
    c.warmup_chunks = 8;
  }
  return c;
}

int StreamConfig::rounds_per_stage() const {
  // A round is one multiply and one add on a 4-byte word: 0.5 operations per byte.
  return std::max(1, static_cast<int>(std::lround(flops_per_byte * 2)));
}

void parse_unseen_flag(std::string_view text, StreamConfig& config) {
  const auto at = text.find('@');
  const std::string_view role = text.substr(0, at);
  const auto malformed = [&] {
    return UsageError(fmt::format("{}='{}': expected ROLE@CHUNK, ROLE one of producer, stage1..stage{}, consumer",
                                  unseen_flag_variable, text, config.stages));
  };
  if (at == std::string_view::npos) throw malformed();
  if (role == "producer") config.unseen_flag.role = 0;
  else if (role == "consumer") config.unseen_flag.role = config.stages + 1;
  else if (role.starts_with("stage") && role.size() > 5) {
    const auto stage = parse_positive_count(role.substr(5), unseen_flag_variable);
    if (stage > config.stages) throw malformed();
    config.unseen_flag.role = static_cast<int>(stage);
  } else {
    throw malformed();
  }
  const std::string_view chunk = text.substr(at + 1);
  config.unseen_flag.chunk =
      chunk == "0" ? 0 : static_cast<std::uint64_t>(parse_positive_count(chunk, unseen_flag_variable));
}

void parse_corrupt_output(std::string_view text, StreamConfig& config) {
  const auto at = text.find('@');
  const auto malformed = [&](std::string_view why) {
    return UsageError(fmt::format("{}='{}': {}; expected DESIGN@CHUNK, DESIGN one of {}, CHUNK a chunk size the run "
                                  "measures for it (offload: the stream's size)",
                                  corrupt_output_variable, text, why, design_names()));
  };
  if (at == std::string_view::npos) throw malformed("no '@'");
  const std::string_view design = text.substr(0, at);
  const DesignInfo* known = find_design(design);
  if (!known) throw malformed(fmt::format("unknown design '{}'", design));
  config.corrupt_output.design = known->design;
  try {
    config.corrupt_output.chunk_bytes = parse_bytes(text.substr(at + 1));
  } catch (const UsageError& e) {
    throw malformed(e.what());
  }
}

namespace {

// The hook must name a point the run measures, or no check would be shown failing.
void validate_corrupt_output(const StreamConfig& config, const Capabilities& capabilities) {
  const StreamConfig::CorruptOutput& hook = config.corrupt_output;
  if (!hook.design) return;
  std::vector<std::string> skipped;
  const std::vector<Point> points = points_of(config, capabilities, skipped);
  if (std::any_of(points.begin(), points.end(),
                  [&](const Point& p) { return p.design == *hook.design && p.chunk_bytes == hook.chunk_bytes; }))
    return;
  std::vector<std::string> measured;  // per design, its chunk sizes
  for (Design design : config.designs) {
    std::vector<std::uint64_t> chunks;
    for (const Point& p : points)
      if (p.design == design && std::find(chunks.begin(), chunks.end(), p.chunk_bytes) == chunks.end())
        chunks.push_back(p.chunk_bytes);
    if (!chunks.empty())
      measured.push_back(fmt::format("{} at {}", to_string(design), join(chunks, ", ", format_bytes)));
  }
  throw UsageError(fmt::format("{} names {} at {}, which this run does not measure: it accepts DESIGN@CHUNK of {}",
                               corrupt_output_variable, to_string(*hook.design), format_bytes(hook.chunk_bytes),
                               measured.empty() ? std::string("nothing")
                                                : join(measured, "; ", [](const std::string& s) { return s; })));
}

}  // namespace

void validate(Backend& backend, const StreamConfig& config) {
  const DeviceStatus status = backend.device_status(config.device);  // throws for a device that does not exist
  if (config.designs.empty()) throw UsageError("no design selected");
  if (config.chunk_bytes.empty()) throw UsageError("the chunk sweep is empty");
  if (config.depths.empty()) throw UsageError("no depth selected");
  if (config.total_bytes % quad_bytes != 0)
    throw UsageError(fmt::format("the stream ({} B) must be a multiple of {} bytes", config.total_bytes, quad_bytes));
  for (std::uint64_t chunk : config.chunk_bytes) {
    if (chunk % quad_bytes != 0)
      throw UsageError(fmt::format("a chunk ({} B) must be a multiple of {} bytes", chunk, quad_bytes));
    if (config.chunk_sweep_given && chunk > config.total_bytes)
      throw UsageError(fmt::format("a chunk of {} is larger than the stream ({}): raise --total or lower --chunks",
                                   format_bytes(chunk), format_bytes(config.total_bytes)));
  }
  for (int depth : config.depths)
    if (depth < 1) throw UsageError(fmt::format("--depth must be at least 1, not {}", depth));
  if (config.stages < 1 || config.stages > 64)
    throw UsageError(fmt::format("--stages must be 1..64, not {}", config.stages));
  if (config.iterations < 1) throw UsageError("--iterations must be at least 1");
  if (config.persistent_teams < 0 || config.persistent_teams > 1024)
    throw UsageError(fmt::format("--teams must be 1..1024, not {}", config.persistent_teams));
  if (!(config.flops_per_byte > 0) || config.flops_per_byte > 1e4)
    throw UsageError(fmt::format("--flops-per-byte must be in (0, 10000], not {}", config.flops_per_byte));

  // The most device memory one point holds at once.
  const std::uint64_t chunk = std::min(config.chunk_bytes.back(), config.total_bytes);
  const std::uint64_t depth = static_cast<std::uint64_t>(*std::max_element(config.depths.begin(), config.depths.end()));
  std::uint64_t needed =
      std::min<std::uint64_t>(config.total_bytes, 256ull << 20) * 2;  // the compute ceiling's buffers
  for (Design d : config.designs)
    needed = std::max(needed, design_info(d).device_bytes(chunk, depth, config.total_bytes));
  if (needed > status.free_bytes)
    throw UsageError(
        fmt::format("this stream needs {} on device {}, which has {} free: lower --total, --chunks or --depth",
                    format_capacity(needed), config.device, format_capacity(status.free_bytes)));
  validate_corrupt_output(config, backend.capabilities());
  const std::uint64_t host_bytes = read_host_facts().memory_bytes;
  if (host_bytes > 0 && 2 * config.total_bytes > host_bytes)
    throw UsageError(fmt::format("a {} stream needs {} of host memory (input and output); this host has {}",
                                 format_bytes(config.total_bytes), format_bytes(2 * config.total_bytes),
                                 format_capacity(host_bytes)));
}

}  // namespace ferry::stream
