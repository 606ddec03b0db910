#pragma once
// The kernels `link` times. Each is one FERRY_HD body for the GPU and the emulator.
#include <cstdint>

#include "backend/hd.hpp"
#include "bench/common/count_to_host.hpp"

namespace ferry {
class Stream;
}

namespace ferry::link {

struct EmptyKernel {
  FERRY_HD void operator()(std::int64_t) const {}
};

// Reads the words the kernel before it wrote and writes each one higher: a
// chain of these waits, kernel by kernel, for its predecessor's data, as the
// passes of a sort do, where a chain of empty kernels waits for nothing.
struct HandOnKernel {
  std::uint64_t* words;  // device memory
  FERRY_HD void operator()(std::int64_t i) const { words[i] += 1; }
};

// 16-byte words, so a GPU thread moves a whole vector per access.
struct alignas(16) Word128 {
  std::uint64_t low, high;
};

// A kernel copying 16 bytes a thread: through mapped host memory (zero-copy
// read or write), or into or out of a peer's memory (SM stores and loads over NVLink).
struct ZeroCopyCopy {
  const Word128* source;
  Word128* destination;
  FERRY_HD void operator()(std::int64_t i) const { destination[i] = source[i]; }
};

constexpr std::uint64_t kernel_timed_out = ~0ull;
constexpr std::uint64_t stop_ticket = ~0ull - 1;

// Announces it runs, then spins until the host releases it with `ticket`.
struct WaitForRelease {
  const std::uint64_t* release;
  std::uint64_t* started;
  std::uint64_t ticket;
  std::uint64_t timeout_ns;

  FERRY_HD void operator()(std::int64_t) const {
    store_release_system(started, ticket);
    const std::uint64_t since = timeout_clock_ns();
    while (load_acquire_system(release) != ticket) {
      if (timeout_clock_ns() - since > timeout_ns) {
        store_release_system(started, kernel_timed_out);
        return;
      }
    }
  }
};

// Launched once: echoes every new doorbell value into `reply` until the host
// rings stop_ticket, or gives up after `idle_timeout_ns` without a new value.
// The echo publishes nothing but its own value, so it needs no release: it
// polls and replies with relaxed system-scope accesses. On an H100 (5000
// round trips a variant, medians of three repeats within 0.5%): acquire poll,
// release reply, the clock read every poll 3.30 us a round trip; volatile poll,
// release reply 3.30; acquire poll, volatile reply 2.61; relaxed poll and
// reply, the clock every poll 2.61; the clock every 1024 polls 2.61; volatile
// poll and reply, no clock 2.57; the host's wait loop made no difference. The
// 0.7 us is the system-scope release fence in front of the reply, which
// `release_reply` keeps, to price what a flag that publishes data pays.
struct FlagEcho {
  const std::uint64_t* doorbell;
  std::uint64_t* reply;
  std::uint64_t idle_timeout_ns;
  bool release_reply = false;
  std::uint64_t wrong_echo_for = 0;  // test hook: this sequence number is answered with another (0: none)

  static constexpr std::uint64_t polls_per_clock_read = 1024;

  FERRY_HD void operator()(std::int64_t) const {
    std::uint64_t last = 0, idle_polls = 0, idle_since = 0;
    for (;;) {
      const std::uint64_t value = load_relaxed_system(doorbell);
      if (value != last) {
        answer(value == wrong_echo_for ? value ^ (1ull << 62) : value);
        if (value == stop_ticket) return;
        last = value;
        idle_polls = 0;
        continue;
      }
      spin_pause();
      if (++idle_polls % polls_per_clock_read != 0) continue;
      // The idle time counts from the first clock read after the last new value.
      const std::uint64_t now = timeout_clock_ns();
      if (idle_polls == polls_per_clock_read) {
        idle_since = now;
      } else if (now - idle_since > idle_timeout_ns) {
        answer(kernel_timed_out);
        return;
      }
    }
  }

  FERRY_HD void answer(std::uint64_t value) const {
    if (release_reply) {
      store_release_system(reply, value);
    } else {
      store_relaxed_system(reply, value);
    }
  }
};

// Launched once, one team: the least a chunk costs a kernel that stays
// resident (stream's fused design at depth 1). For ring i, thread 0 polls the
// doorbell until it reads i (an acquire load each poll); the team copies
// chunk (i - 1) mod `chunks` of mapped input to mapped output, a 16-byte word
// a thread, all at once; thread 0 then echoes i behind a system release, so
// the host that sees it sees the chunk. Stops at stop_ticket, or echoes
// kernel_timed_out after `idle_timeout_ns` without a ring.
struct ChunkEcho {
  const std::uint64_t* doorbell;  // mapped
  std::uint64_t* reply;           // mapped
  const Word128* input;           // mapped: `chunks` chunks of chunk_words
  Word128* output;                // mapped
  std::uint64_t chunk_words;
  std::uint64_t chunks;
  std::uint64_t idle_timeout_ns;
  std::uint64_t corrupt_ring = 0;  // test hook: this ring's chunk gets one wrong word (0: none)

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    for (std::uint64_t ring = 1;; ++ring) {
      bool go = false;
      if (team.rank() == 0) {
        const std::uint64_t seen = await_ring(ring);
        if (seen == kernel_timed_out) store_release_system(reply, kernel_timed_out);
        go = seen == ring;
      }
      if (!team.sync_or(go)) return;
      const std::uint64_t first = ((ring - 1) % chunks) * chunk_words;
      for (std::uint64_t w = static_cast<std::uint64_t>(team.rank()); w < chunk_words;
           w += static_cast<std::uint64_t>(team.size()))
        output[first + w] = input[first + w];
      team.sync();
      if (team.rank() == 0) {
        if (ring == corrupt_ring) output[first].low ^= 1;
        store_release_system(reply, ring);
      }
    }
  }

  // The doorbell once it reads `ring` or stop_ticket; kernel_timed_out after idle_timeout_ns.
  FERRY_HD std::uint64_t await_ring(std::uint64_t ring) const {
    std::uint64_t since = 0;
    for (std::uint64_t polls = 1;; ++polls) {
      const std::uint64_t value = load_acquire_system(doorbell);
      if (value == ring || value == stop_ticket) return value;
      spin_pause();
      if (polls % 1024 != 0) continue;
      const std::uint64_t now = timeout_clock_ns();
      if (since == 0) since = now;
      else if (now - since > idle_timeout_ns) return kernel_timed_out;
    }
  }
};

// One thread follows a chain of indices through mapped host memory: each read
// needs the one before it, so the kernel's time is reads x one PCIe round trip.
struct MappedReadChain {
  const std::uint64_t* links;  // mapped: links[i] is the next index
  std::uint64_t reads;
  std::uint64_t* last;  // device memory: where the chain ended, for the host to check
  FERRY_HD void operator()(std::int64_t) const {
    std::uint64_t at = 0;
    for (std::uint64_t r = 0; r < reads; ++r) at = load_relaxed_system(links + at);
    *last = at;
  }
};

// `streaming` teams copy mapped host memory to mapped host memory (reads and
// writes both ways at once), `passes` times over, each thread with 8 reads in
// flight; the team after them has one thread follow a chain of dependent
// reads through mapped memory until the streaming teams are done: the round
// trip a doorbell poll takes while the link carries that load.
struct LoadedReadRoundTrip {
  const Word128* source;  // mapped
  Word128* destination;   // mapped
  std::uint64_t words;    // per pass
  int passes;
  int streaming;
  const std::uint64_t* chain;  // mapped: chain[at] is the next index
  std::uint64_t* finished;     // device memory: streaming teams done
  std::uint64_t* timed;        // device memory: reads (0: gave up waiting), nanoseconds, where the chain ended
  std::uint64_t timeout_ns;

  static constexpr int in_flight = 8;

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    if (team.index() < streaming) {
      const std::uint64_t step = static_cast<std::uint64_t>(streaming) * static_cast<std::uint64_t>(team.size());
      const std::uint64_t first = static_cast<std::uint64_t>(team.index()) * team.size() + team.rank();
      for (int p = 0; p < passes; ++p)
        for (std::uint64_t base = first; base < words; base += in_flight * step) {
          Word128 held[in_flight];
          FERRY_UNROLL
          for (int k = 0; k < in_flight; ++k)
            if (base + k * step < words) held[k] = source[base + k * step];
          FERRY_UNROLL
          for (int k = 0; k < in_flight; ++k)
            if (base + k * step < words) destination[base + k * step] = held[k];
        }
      team.sync();
      if (team.rank() == 0) increment_relaxed_device(finished);
      return;
    }
    if (team.rank() != 0) return;
    std::uint64_t at = 0, reads = 0;
    const std::uint64_t start = timeout_clock_ns();
    std::uint64_t now = start;
    do {
      for (int r = 0; r < 8; ++r) at = load_relaxed_system(chain + at);
      reads += 8;
      spin_pause();
      now = timeout_clock_ns();
    } while (load_relaxed_device(finished) < static_cast<std::uint64_t>(streaming) && now - start <= timeout_ns);
    timed[0] = now - start <= timeout_ns ? reads : 0;
    timed[1] = now - start;
    timed[2] = at;
  }
};

// Teams that meet at `barriers` barriers in a row: grid-wide in a
// cooperative kernel, or cluster-wide in one thread-block cluster. Before
// barrier b (from 1) each team writes b as its arrival; after it, each checks
// that the next team's arrival has reached b, and counts a miss where it has
// not: a barrier that let a team through early cannot pass.
template <bool Cluster>
struct TeamBarriers {
  std::uint64_t* arrivals;  // one per team
  std::uint64_t* misses;
  int barriers;
  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    const int next = (team.index() + 1) % team.count();
    for (int b = 1; b <= barriers; ++b) {
      if (team.rank() == 0) store_relaxed_device(arrivals + team.index(), static_cast<std::uint64_t>(b));
      if constexpr (Cluster) {
        team.cluster_sync();
      } else {
        team.grid_sync();
      }
      if (team.rank() == 0 && load_relaxed_device(arrivals + next) < static_cast<std::uint64_t>(b))
        increment_relaxed_device(misses);
    }
  }
};
using GridBarriers = TeamBarriers<false>;
using ClusterBarriers = TeamBarriers<true>;

// Enqueue the kernels above (link_launch.cpp, compiled as CUDA when the CUDA backend is built).
void launch_empty(Stream& stream, bool programmatic = false);
void launch_hand_on(Stream& stream, const HandOnKernel& kernel, std::int64_t words, bool programmatic);
void launch_zero_copy(Stream& stream, const ZeroCopyCopy& kernel, std::int64_t words);
void launch_wait_for_release(Stream& stream, const WaitForRelease& kernel);
void launch_flag_echo(Stream& stream, const FlagEcho& kernel);
void launch_chunk_echo(Stream& stream, const ChunkEcho& kernel);
void launch_count_to_host(Stream& stream, const CountToHost& kernel);
void launch_mapped_read_chain(Stream& stream, const MappedReadChain& kernel);
void launch_loaded_read_round_trip(Stream& stream, const LoadedReadRoundTrip& kernel);
int loaded_resident_teams(Stream& stream);
// Grid barriers in a cooperative launch; cluster barriers in one cluster.
void launch_barriers(Stream& stream, int teams, const GridBarriers& kernel);
void launch_barriers(Stream& stream, int teams, const ClusterBarriers& kernel);
// A team per multiprocessor, or as many as the device holds at once where it holds fewer or its count is unknown.
int grid_barrier_teams(Stream& stream, int multiprocessors);

}  // namespace ferry::link
