#pragma once
// The designs of `stream`, each declared once: design_table() holds an entry
// per Design with all that the options, the points, the plan, the model and
// the run read of it. A new design is its Design value, its entry, its path
// (stream_model.hpp) and its pass (a StreamBench member).
#include <cstdint>
#include <span>
#include <string_view>

#include "bench/stream/stream.hpp"
#include "bench/stream/stream_model.hpp"
#include "bench/stream/stream_run.hpp"

namespace ferry::stream {

struct DesignInfo {
  Design design;
  std::string_view name;  // as --design, the rows and FERRY_FAULT_CORRUPT_OUTPUT name it
  // What it asks of the backend; points_of() skips it, saying why, where the backend lacks it.
  bool mapped_memory;  // kernels reach host memory: the stream's words, or a flag the host polls
  bool graphs;
  // Its points: the whole stream as one chunk at depth 1, else every chunk x depth of the sweep.
  bool whole_stream;
  // Device buffers of a chunk's size (the stream's, for whole_stream) per chunk in flight.
  int chunk_buffers;
  // Launched once per pass and handed each chunk by a doorbell, else work
  // launched per chunk: the plan's waits, launches and hand-offs and the
  // model's fixed cost (a flag round trip, else a launch and its sync).
  bool launched_once;
  // The model: the link's bytes cross by copy engine, else by the SMs over
  // mapped memory; compute runs a kernel or role per stage (one stage's
  // ceiling / stages), else every stage in one kernel; and what a chunk alone
  // goes through.
  bool copies_by_engine;
  bool stage_at_a_time;
  ChunkPath (*path)(const PathTerms& terms);
  // The run: one pass over the stream's first `chunks` chunks.
  Pass (StreamBench::*pass)(const Point& point, std::uint64_t chunks);

  // The device memory one of its points holds at once.
  std::uint64_t device_bytes(std::uint64_t chunk_bytes, std::uint64_t depth, std::uint64_t total_bytes) const {
    return static_cast<std::uint64_t>(chunk_buffers) * (whole_stream ? total_bytes : depth * chunk_bytes);
  }
};

// Every design, in Design's order.
std::span<const DesignInfo> design_table();
const DesignInfo& design_info(Design design);
// The design --design calls `name`, or null.
const DesignInfo* find_design(std::string_view name);

}  // namespace ferry::stream
