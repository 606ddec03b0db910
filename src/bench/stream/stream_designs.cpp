// The one table of stream's designs, and their names.
#include "bench/stream/stream_designs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ferry::stream {
namespace {

constexpr std::array<DesignInfo, 8> table = {{
    // All input in, one kernel, all output out.
    {.design = Design::offload,
     .name = "offload",
     .mapped_memory = false,
     .graphs = false,
     .whole_stream = true,
     .chunk_buffers = 1,
     .launched_once = false,
     .copies_by_engine = true,
     .stage_at_a_time = false,
     .path = launch_copy_kernel_copy,
     .pass = &StreamBench::launch_per_chunk},
    // Per chunk: copy in, kernel, copy out, on `depth` streams.
    {.design = Design::chunked,
     .name = "chunked",
     .mapped_memory = false,
     .graphs = false,
     .whole_stream = false,
     .chunk_buffers = 1,
     .launched_once = false,
     .copies_by_engine = true,
     .stage_at_a_time = false,
     .path = launch_copy_kernel_copy,
     .pass = &StreamBench::launch_per_chunk},
    // Per chunk: one kernel reading and writing mapped host memory.
    {.design = Design::zerocopy,
     .name = "zerocopy",
     .mapped_memory = true,
     .graphs = false,
     .whole_stream = false,
     .chunk_buffers = 0,
     .launched_once = false,
     .copies_by_engine = false,
     .stage_at_a_time = false,
     .path = launch_on_mapped_memory,
     .pass = &StreamBench::launch_per_chunk},
    // Per chunk: copy in, `stages` kernels between two device buffers, copy out.
    {.design = Design::pipeline,
     .name = "pipeline",
     .mapped_memory = false,
     .graphs = false,
     .whole_stream = false,
     .chunk_buffers = 2,
     .launched_once = false,
     .copies_by_engine = true,
     .stage_at_a_time = true,
     .path = launch_kernel_per_stage,
     .pass = &StreamBench::launch_per_chunk},
    // Producer, stages and consumer launched once; chunks pass by flags.
    {.design = Design::persistent,
     .name = "persistent",
     .mapped_memory = true,
     .graphs = false,
     .whole_stream = false,
     .chunk_buffers = 0,
     .launched_once = true,
     .copies_by_engine = false,
     .stage_at_a_time = true,
     .path = doorbell_through_stage_roles,
     .pass = &StreamBench::persistent},
    // Per chunk: one launch of a graph (copy in, kernel, copy out, flag) from a ring of them.
    {.design = Design::graph,
     .name = "graph",
     .mapped_memory = true,
     .graphs = true,
     .whole_stream = false,
     .chunk_buffers = 1,
     .launched_once = false,
     .copies_by_engine = true,
     .stage_at_a_time = false,
     .path = graph_launch,
     .pass = &StreamBench::graph_ring},
    // Launched once; each team reads, runs every stage and writes its slice: a doorbell per ring slot.
    {.design = Design::fused,
     .name = "fused",
     .mapped_memory = true,
     .graphs = false,
     .whole_stream = false,
     .chunk_buffers = 0,
     .launched_once = true,
     .copies_by_engine = false,
     .stage_at_a_time = false,
     .path = doorbell_through_all_stages,
     .pass = &StreamBench::fused},
    // Launched once; the stream is dealt among a fixed pool of teams' threads.
    {.design = Design::pool,
     .name = "pool",
     .mapped_memory = true,
     .graphs = false,
     .whole_stream = false,
     .chunk_buffers = 0,
     .launched_once = true,
     .copies_by_engine = false,
     .stage_at_a_time = false,
     .path = doorbell_through_all_stages,
     .pass = &StreamBench::pool},
}};

constexpr bool in_design_order() {
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].design != static_cast<Design>(i)) return false;
  return true;
}
static_assert(in_design_order(), "design_info() finds a design's entry at its Design value");

}  // namespace

std::span<const DesignInfo> design_table() { return table; }

const DesignInfo& design_info(Design design) { return table.at(static_cast<std::size_t>(design)); }

const DesignInfo* find_design(std::string_view name) {
  const auto it = std::find_if(table.begin(), table.end(), [&](const DesignInfo& d) { return d.name == name; });
  return it == table.end() ? nullptr : &*it;
}

const std::vector<Design>& all_designs() {
  static const std::vector<Design> all = [] {
    std::vector<Design> designs;
    for (const DesignInfo& d : table) designs.push_back(d.design);
    return designs;
  }();
  return all;
}

std::string_view to_string(Design design) { return design_info(design).name; }

Design design_from_string(std::string_view name) {
  if (const DesignInfo* design = find_design(name)) return design->design;
  throw UsageError(fmt::format("unknown design '{}': choose {} or all", name, design_names()));
}

std::string design_names() {
  return join(all_designs(), ", ", [](Design d) { return std::string(to_string(d)); });
}

}  // namespace ferry::stream
