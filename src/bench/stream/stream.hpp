#pragma once
// `ferry run stream` and `ferry tune stream`: a stream of data that arrives on
// the host and must come back to it, processed by each design (all_designs()),
// measured for latency per chunk and throughput of the whole stream.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "bench/common/plan.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"

namespace ferry::stream {

// Each design's entry in design_table() (stream_designs.hpp) says what it is
// and all that the run, the model and the plan do differently for it.
enum class Design { offload, chunked, zerocopy, pipeline, persistent, graph, fused, pool };

const std::vector<Design>& all_designs();
std::string_view to_string(Design design);
// "offload, chunked, ...": every design's name, as --design takes it.
std::string design_names();
// Throws UsageError naming the known designs.
Design design_from_string(std::string_view name);

struct StreamConfig {
  int device = 0;
  std::vector<Design> designs = all_designs();
  std::uint64_t total_bytes = 0;
  std::vector<std::uint64_t> chunk_bytes;  // the sweep; offload always moves the whole stream at once
  std::vector<int> depths{4};              // chunks in flight at once (k-deep buffering)
  int stages = 3;
  double flops_per_byte = 1;         // per stage; rounded to whole multiply-adds per word
  int iterations = 3;                // timed passes over the whole stream, after a warm-up
  std::uint64_t warmup_chunks = 64;  // chunks streamed untimed before each point
  int persistent_teams = 0;  // persistent teams, each a slice of every chunk; 0: from the chunk size and the device
  bool chunk_sweep_given = false;  // the user chose the chunks: a chunk larger than the stream is an error
  // How long a wait may last before the run is stuck: a kernel's team gives up
  // after it, and the host, where a team could give up first, after twice it.
  double timeout_s = 10;
  // Test hook (FERRY_FAULT_UNSEEN_FLAG=ROLE@CHUNK, docs/reliability.md): a
  // persistent role (0 the producer, 1.. the stages, stages + 1 the consumer)
  // of team 0 never sees chunk `chunk` arrive.
  struct UnseenFlag {
    int role = -1;
    std::uint64_t chunk = 0;
  } unseen_flag;
  // Test hook (FERRY_FAULT_CORRUPT_OUTPUT=DESIGN@CHUNK, docs/reliability.md):
  // at every depth of that design at that chunk size (offload: the whole
  // stream), the first timed pass has one word of its middle chunk's output
  // changed after the pass and before its check, so those rows must fail.
  struct CorruptOutput {
    std::optional<Design> design;
    std::uint64_t chunk_bytes = 0;
  } corrupt_output;
  std::string profile_origin = "measured by link in this run";  // where the model's ceilings came from

  // What a run does without options: 1 GiB and 4 KiB..64 MiB on a GPU, less
  // on the emulator (its copies are memcpy on a CPU), less again with --quick.
  static StreamConfig defaults(const Capabilities& capabilities, bool quick);
  // Multiply-adds per 32-bit word per stage (each two operations on four bytes).
  int rounds_per_stage() const;
  // timeout_s as a kernel's wait reads it.
  std::uint64_t timeout_ns() const { return static_cast<std::uint64_t>(timeout_s * 1e9); }
};

// Throws UsageError for what the backend or the host cannot give.
void validate(Backend& backend, const StreamConfig& config);

constexpr const char* unseen_flag_variable = "FERRY_FAULT_UNSEEN_FLAG";
// "stage1@5", "producer@0", "consumer@3" into config.unseen_flag; UsageError naming the variable when malformed.
void parse_unseen_flag(std::string_view text, StreamConfig& config);
// "chunked@64K", "offload@4M" into config.corrupt_output; UsageError naming the
// variable when malformed. validate() refuses a point the run does not measure.
void parse_corrupt_output(std::string_view text, StreamConfig& config);

// The figures of the machine profile the models read.
struct Ceilings {
  model::DeviceProfile link;
  double fused_compute_Bps = 0;  // every stage in one kernel, device-resident, input bytes per second
  double stage_compute_Bps = 0;  // one stage as its own kernel
};

// The steps run() and tune() take after the model's link ceilings, each with
// its work, before anything is allocated.
Plan plan_run(const StreamConfig& config, const Capabilities& capabilities);

WorkloadResult run(Backend& backend, const Machine& machine, const StreamConfig& config,
                   const model::DeviceProfile& profile, const Progress& progress);

struct Target {
  std::optional<double> latency_s;       // meet a median chunk latency, then maximise throughput
  std::optional<double> throughput_Bps;  // meet a throughput, then minimise latency
};

// Searches designs x chunks x depths; the result's notes name the best
// configuration that meets the target, and `met` says whether one did.
struct TuneOutcome {
  WorkloadResult result;
  bool met = false;
};
TuneOutcome tune(Backend& backend, const Machine& machine, const StreamConfig& config,
                 const model::DeviceProfile& profile, const Target& target, const Progress& progress);

}  // namespace ferry::stream
