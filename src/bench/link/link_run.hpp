#pragma once
// What the parts of one `link` run share. Internal to bench/link.
#include <algorithm>
#include <cstdint>
#include <string>

#include "bench/common/verify.hpp"
#include "bench/link/link.hpp"

namespace ferry::link {

struct LinkRun {
  Backend& backend;
  const LinkConfig& config;
  const Progress& progress;
  Machine machine;
  PatternChecker checker;
  LinkOutcome outcome;

  model::DeviceProfile& profile_of(int device);
  const GpuFacts& gpu(int device) const { return machine.gpus.at(device); }
  // The PCIe rate the models use for a device, and its name; 0 and "" when unknown.
  double pcie_Bps(int device) const;
  std::string pcie_basis(int device) const;

  void add(Row row) {
    outcome.result.rows.push_back(std::move(row));
    progress.keep_rows(outcome.result);
  }
  void skip(std::string why);

  // The test hook: true for the config.corrupt_row-th checked row of
  // config.corrupt_section to ask, false for every other. Each checked row
  // asks once, as it is built.
  bool corrupts(std::string_view section);
  // Changes word `word` of `buffer` (its bytes, where it has fewer than 8):
  // `stream` on the buffer's device when it is device memory.
  void corrupt_word(Stream& stream, Buffer& buffer, std::size_t word = 0);

  bool corrupted = false;
  int rows_asking = 0;  // checked rows of config.corrupt_section so far
};

// Each part adds its rows and fills its profile figures.
void measure_copy_latency(LinkRun& run, int device);
void measure_dispatch(LinkRun& run, int device);
void measure_flag_round_trip(LinkRun& run, int device);
void measure_mapped_read_latency(LinkRun& run, int device);
// A 4 KiB chunk through a persistent kernel and back (the profile's chunk_echo_s): after the read round trip.
void measure_chunk_round_trip(LinkRun& run, int device);
// Untimed round trips before the echoes' timed ones.
inline int echo_warmup(int round_trips) { return std::max(100, round_trips / 10); }
// The chunk echo's chunks: a fresh one for every ring, up to 16384 (64 MiB each way; a full run rings 11000).
inline std::uint64_t chunk_echo_chunks(int round_trips) {
  return std::min<std::uint64_t>(16384, static_cast<std::uint64_t>(echo_warmup(round_trips) + round_trips));
}
void measure_queued_copies(LinkRun& run, int device);
// The copies in one queued batch of `bytes` each.
std::uint64_t queued_copies_for(std::uint64_t bytes, std::uint64_t batch_bytes);
void measure_host_bandwidth(LinkRun& run, int device);
void measure_zero_copy(LinkRun& run, int device);
void measure_zero_copy_under_load(LinkRun& run, int device);
void add_ceilings(LinkRun& run, int device);
void measure_device_copy(LinkRun& run, int device);
void measure_peers(LinkRun& run);
// link_peer_flag.cpp: a kernel-to-kernel flag ping-pong between each pair of devices, and its plan.
void measure_peer_flags(LinkRun& run);
void plan_peer_flags(const LinkConfig& config, Plan& plan);

inline Row make_row(std::string section, Params params, Metric metric, const Measurement& m,
                    double bytes_per_sample = 0) {
  Row row;
  row.section = std::move(section);
  row.params = std::move(params);
  row.metric = metric;
  row.seconds = m.seconds;
  row.bytes_per_sample = bytes_per_sample;
  row.check = m.check;
  return row;
}

// A seed per (what, device, size), so that no buffer can pass with another run's data.
inline std::uint64_t seed_for(std::uint64_t what, int device, std::uint64_t bytes) {
  return (what << 48) ^ (static_cast<std::uint64_t>(device) << 40) ^ bytes;
}

// The chains of dependent reads through mapped memory: 4096 links, a 128-byte line apart.
constexpr std::uint64_t chain_links = 4096, chain_stride = 16;

// A chain of `links` indices a `stride` of words apart in a scattered order,
// words[i * stride] naming the next: no read can be served by the one before
// it or guessed by a prefetcher.
void write_scattered_chain(std::uint64_t* words, std::uint64_t links, std::uint64_t stride);
// Where `reads` steps along the chain from index 0 end.
std::uint64_t chain_end(const std::uint64_t* words, std::uint64_t reads);

inline std::int64_t as_param(std::uint64_t v) { return static_cast<std::int64_t>(v); }

}  // namespace ferry::link
