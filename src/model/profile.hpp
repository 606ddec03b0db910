#pragma once
// The machine profile: the ceilings `ferry run link` measured, which the other
// workloads' models read (`ferry probe -o profile.json`).
#include <cstdint>
#include <string>
#include <vector>

namespace ferry::model {

// One copy of one size, timed by events.
struct CopyTime {
  std::uint64_t bytes = 0;
  double seconds = 0;
};

// Seconds for `bytes` from measured sizes: linear between the two nearest,
// beyond the ends along the nearest two (a copy's time is affine in its size). 0 when none.
double seconds_at(const std::vector<CopyTime>& times, double bytes);

// Teams streaming through mapped host memory both ways at once, and what a
// single read of host memory (a doorbell poll) takes meanwhile.
struct LoadedLink {
  int teams = 0;
  double Bps = 0;                // per direction
  double read_round_trip_s = 0;  // one dependent read of mapped host memory, under that load
};

// The chunk in the profile's chunk_echo_s: stream's smallest default chunk.
inline constexpr std::uint64_t chunk_echo_bytes = 4096;

struct DeviceProfile {
  int device = 0;
  std::string name;
  double pcie_theoretical_Bps = 0;
  double h2d_Bps = 0;  // pinned memory, copy engine, best median over the size sweep
  double d2h_Bps = 0;
  double bidirectional_Bps = 0;  // both directions at once, bytes of both counted
  double pageable_h2d_Bps = 0;
  double pageable_d2h_Bps = 0;
  double zero_copy_read_Bps = 0;     // a kernel reading mapped host memory
  double zero_copy_write_Bps = 0;    // a kernel writing mapped host memory
  double zero_copy_both_Bps = 0;     // a kernel reading mapped host memory while writing it, per direction
  double mapped_read_latency_s = 0;  // one thread's dependent reads of mapped host memory, per read
  double copy_latency_h2d_s = 0;     // smallest pinned copy + stream sync, host view
  double copy_latency_d2h_s = 0;
  double copy_engine_latency_h2d_s = 0;  // the same copy timed by events: the device's share of it
  double copy_engine_latency_d2h_s = 0;
  double launch_and_sync_s = 0;    // one empty kernel, launch to sync return
  double launch_per_kernel_s = 0;  // empty kernels launched back to back
  double graph_per_kernel_s = 0;   // the same kernels replayed from a graph
  double programmatic_graph_per_kernel_s =
      0;  // ... with programmatic edges (each launches while the one before drains)
  // The same two graphs of kernels that each read what the one before wrote:
  // what a chain of dependent passes pays per kernel before its own work.
  double dependent_graph_per_kernel_s = 0;
  double dependent_programmatic_graph_per_kernel_s = 0;
  double dependent_kernel_bytes = 0;  // what each kernel of that chain reads and writes: its figure holds that sweep
  double grid_barrier_s = 0;          // one grid-wide barrier in a cooperative kernel, a team per multiprocessor
  double cluster_barrier_s = 0;       // one barrier of a thread-block cluster, as many teams as a cluster holds
  double sync_wakeup_s = 0;           // kernel released through mapped memory -> stream sync returns
  double flag_round_trip_s = 0;       // host doorbell -> persistent kernel echo seen by the host
  // The same echo behind a system-scope release fence: what a flag that
  // publishes data (written before it) pays per round trip.
  double flag_round_trip_release_s = 0;
  // The released echo with a chunk_echo_bytes chunk in it: the kernel reads
  // the chunk from mapped host memory and writes it back before the echo. The
  // least a chunk costs a resident kernel (stream's fused design, depth 1).
  double chunk_echo_s = 0;
  // One launch of a graph that copies a word in, runs a kernel on it, copies it
  // out and raises a flag in mapped memory -> the flag seen by the host: the
  // fixed cost of a chunk through stream's graph design.
  double graph_chunk_round_trip_s = 0;
  double device_copy_Bps = 0;
  // Copies of one size queued back to back on a stream, seconds per copy (for
  // both ways: per pair, one each way at once), smallest first: what chunked
  // designs pay per chunk when the host never waits.
  std::vector<CopyTime> queued_h2d{}, queued_d2h{}, queued_both_ways{};
  // Fewest teams first: the link's throughput against the round trip it costs a poll.
  std::vector<LoadedLink> zero_copy_under_load{};
};

struct PeerProfile {
  int from = 0;
  int to = 0;
  bool direct_access = false;
  double copy_Bps = 0;
  double latency_s = 0;              // 8-byte copy + sync
  double bidirectional_Bps = 0;      // copies both ways at once, bytes of both counted
  std::vector<CopyTime> copy_times;  // one-way copies by events at several sizes, smallest first
  std::vector<CopyTime> both_ways;   // a copy each way at once (seconds of the pair), smallest first
  double sm_push_Bps = 0;            // kernels on both devices storing into the other's memory, bytes of both counted
  double sm_pull_Bps = 0;            // kernels on both devices loading from the other's memory, bytes of both counted
  // A kernel's flag stored into the other's memory and seen by the other's
  // polling kernel: half a round trip of a ping-pong between the two kernels.
  double flag_one_way_s = 0;
};

struct MachineProfile {
  static constexpr const char* schema = "ferry.profile/1";
  std::string backend;
  bool gpu_timings = false;
  std::string created_utc;
  std::vector<DeviceProfile> devices;
  std::vector<PeerProfile> peers;

  // Throws UsageError when the profile has no entry for the device.
  const DeviceProfile& device(int index) const;
};

std::string profile_to_json(const MachineProfile& profile);
// Throws UsageError naming `origin` when the text is not a ferry profile.
MachineProfile profile_from_json(const std::string& text, const std::string& origin);
MachineProfile read_profile(const std::string& path);

}  // namespace ferry::model
