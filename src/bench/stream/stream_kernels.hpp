#pragma once
// What every `stream` design computes, and the kernels that compute it. Each
// is one FERRY_HD body for the GPU and the emulator.
#include <cstdint>

#include "backend/hd.hpp"
#include "bench/common/pattern.hpp"

namespace ferry {
class Stream;
}

namespace ferry::stream {

// The stream's elements are 32-bit words, moved 16 bytes at a time so that a
// GPU thread issues one vector load or store per access.
struct alignas(16) Quad {
  std::uint32_t word[4];
};
constexpr std::uint64_t quad_bytes = sizeof(Quad);

// Word i of the stream's input for one iteration's seed: never the same stream twice.
FERRY_HD inline std::uint32_t input_word(std::uint64_t i, std::uint64_t seed) {
  return static_cast<std::uint32_t>(pattern_word(i, seed));
}

// One stage of the per-element function: `rounds` 32-bit multiply-adds (two
// operations each). Integer arithmetic, so the GPU and the host agree bit for bit,
// and each stage adds a different constant, so a skipped stage cannot pass.
FERRY_HD inline std::uint32_t stage_constant(int stage) { return 0x7F4A7C15u * static_cast<std::uint32_t>(stage + 1) | 1u; }

FERRY_HD inline std::uint32_t stage_round(std::uint32_t x, std::uint32_t add) { return x * 0x9E3779B1u + add; }

FERRY_HD inline std::uint32_t stage_function(std::uint32_t x, int stage, int rounds) {
  const std::uint32_t add = stage_constant(stage);
  for (int r = 0; r < rounds; ++r) x = stage_round(x, add);
  return x;
}

FERRY_HD inline std::uint32_t all_stages(std::uint32_t x, int stages, int rounds) {
  for (int s = 0; s < stages; ++s) x = stage_function(x, s, rounds);
  return x;
}

// Each word's multiply-adds are stage_function's, in its order; the four words
// take each step together, so their four chains overlap. A word at a time left
// every multiply-add waiting on the one before: 1580 cycles for 4 KiB through
// 3 stages on an H100, a tenth of a 4 KiB chunk's latency in fused
// (docs/results/stream-experiments/fused-stamps).
FERRY_HD inline Quad stage_quad(Quad q, int first_stage, int stage_count, int rounds) {
  for (int s = first_stage; s < first_stage + stage_count; ++s) {
    const std::uint32_t add = stage_constant(s);
    for (int r = 0; r < rounds; ++r) {
      FERRY_UNROLL
      for (auto& w : q.word) w = stage_round(w, add);
    }
  }
  return q;
}

// Stages [first_stage, first_stage + stage_count) over `quads` quads, from `in`
// to `out` (the same buffer for in place). One kernel per chunk: every design
// but the persistent one.
struct StageKernel {
  const Quad* in;
  Quad* out;
  int first_stage;
  int stage_count;
  int rounds;
  FERRY_HD void operator()(std::int64_t i) const { out[i] = stage_quad(in[i], first_stage, stage_count, rounds); }
};

// Which stages a move applies: none (a plain copy) or a range of them.
struct StageRange {
  int first = 0;
  int count = 0;
  int rounds = 1;
};

// Reads each thread keeps in flight while moving a slice.
constexpr int loads_in_flight = 8;

// One thread moves quads first, first + step, ... below hi from `from` to
// `to` through `stages`, `Wave` quads at a time. Loads first, then stores:
// each thread keeps up to `Wave` reads in flight, which is what hides the
// microsecond a read of host memory takes.
template <int Wave = loads_in_flight>
FERRY_HD void move_strided(const Quad* from, Quad* to, std::uint64_t first, std::uint64_t hi, std::uint64_t step,
                           StageRange stages) {
  for (std::uint64_t base = first; base < hi; base += Wave * step) {
    Quad held[Wave];
    FERRY_UNROLL
    for (int k = 0; k < Wave; ++k)
      if (base + k * step < hi) held[k] = from[base + k * step];
    FERRY_UNROLL
    for (int k = 0; k < Wave; ++k)
      if (base + k * step < hi) to[base + k * step] = stage_quad(held[k], stages.first, stages.count, stages.rounds);
  }
}

// The team moves [slice.lo, slice.hi), its threads taking every team.size()-th quad.
template <int Wave = loads_in_flight, class Team>
FERRY_HD void move_slice(const Team& team, const Quad* from, Quad* to, Slice slice, StageRange stages) {
  move_strided<Wave>(from, to, slice.lo + team.rank(), slice.hi, static_cast<std::uint64_t>(team.size()), stages);
}

// The zero-copy design's kernel for one chunk: teams read mapped input and
// write mapped output; the last team to finish raises the chunk's number in
// host memory, so the host learns of it without an event or a stream sync.
struct ZeroCopyChunk {
  const Quad* in;
  Quad* out;
  std::uint64_t quads;
  StageRange stages;
  std::uint64_t* finished_teams;  // device memory: teams finished over every chunk this slot ran
  std::uint64_t* done;            // mapped: the number of the slot's last finished chunk
  std::uint64_t chunk_number;     // chunk index + 1
  std::uint64_t teams_before;     // teams of the chunks this slot ran before this one

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    move_slice(team, in, out, team_slice(quads, team.index(), team.count()), stages);
    team.sync();
    if (team.rank() == 0) {
      // acq_rel at system scope: every team's writes to the host come before the last team's flag.
      // The last team is the one that brings the slot's count to its total, not a multiple of this
      // chunk's teams: a short last chunk has fewer teams than the chunks before it.
      const std::uint64_t before = increment_acq_rel_system(finished_teams);
      if (before + 1 == teams_before + static_cast<std::uint64_t>(team.count())) store_release_system(done, chunk_number);
    }
  }
};

// Counters the persistent pipeline's roles pass along: chunks handed on so far,
// with this bit set once the shutdown message came after the last of them.
constexpr std::uint64_t shutdown_bit = 1ull << 63;

// Words from one flag in host memory to the next: a 128-byte line each, so the
// host polling one flag never shares a cache line with the GPU writing another
// (shared lines cost a coherence round trip over PCIe on every access).
constexpr std::uint64_t flag_stride = 16;
constexpr std::uint64_t no_failure = 0;

enum class Wait { go, shut_down, timed_out };

// Polls between reads of the timeout clock: the clock costs more than a poll,
// so a wait that ends within the first polls never reads it.
constexpr int polls_per_clock_read = 64;

// True once `timeout_ns` passed since the first call of this wait; `since` starts at 0.
FERRY_HD inline bool out_of_time(std::uint64_t& since, std::uint64_t timeout_ns) {
  const std::uint64_t now = timeout_clock_ns();
  if (since == 0) since = now;
  return now - since > timeout_ns;
}

// Waits for `counter` (a doorbell, or a count passed on) to pass chunk c
// (go), or to carry the shutdown message with no more chunks (shut_down), for
// at most timeout_ns. Relaxed polls, one fence once the value has come: an
// acquire of host memory per poll fences the multiprocessor against its
// teams' writes to the host. A counter in device memory takes a device-scope
// fence: a system-scope one waits a PCIe round trip, behind every write to
// the host still queued.
template <bool from_host>
FERRY_HD Wait wait_past(const std::uint64_t* counter, std::uint64_t c, std::uint64_t timeout_ns) {
  std::uint64_t since = 0;
  for (int polls = 1;; ++polls) {
    const std::uint64_t value = from_host ? load_relaxed_system(counter) : load_relaxed_device(counter);
    if ((value & ~shutdown_bit) > c || (value & shutdown_bit)) {
      if constexpr (from_host) fence_acquire_system();
      else fence_acquire_device();
    }
    if ((value & ~shutdown_bit) > c) return Wait::go;
    if (value & shutdown_bit) return Wait::shut_down;
    if (polls % polls_per_clock_read == 0 && out_of_time(since, timeout_ns)) return Wait::timed_out;
    spin_pause();
  }
}

// The persistent design, launched once. Teams are split into roles:
// a producer (host input -> ring 0), `stages` stage roles (ring s-1 -> ring s)
// and a consumer (ring `stages` -> host output, then a done counter the host
// polls). Team b of every role handles the same slice b of every chunk, so a
// team only waits for team b of the role before it: no grid-wide barrier.
//
// Rings live in device memory, `ring_slots` chunks each. A ring word holds a
// 32-bit value with the number of its chunk (c + 1) above it, as NCCL's LL
// protocol does: a reader thread polls its own words until they carry the
// chunk it wants, so a hand-off costs one store and one read, with no flag,
// fence or barrier between them. A quad's four tagged words are two 16-byte
// halves, each in its own plane of the slot, so a warp moves 512 contiguous
// bytes per access. A quad's words side by side, moved 8 bytes at a time,
// made each warp access touch 32 sectors for a quarter of each, four times
// the traffic to L2 a role needs: on an H100, 64 KiB chunks took 27-29 us
// that way and 25 us this way, 256 KiB x 4 58-59 us and 53-54 us
// (docs/results/stream-experiments, tenth session). Per-team `taken`
// counters (written by a ring's reader) keep a writer from overwriting a
// slot not yet read; per-team `ready` counters carry only the shutdown message.
struct PersistentPipeline {
  int stages;
  int teams_per_role;
  int rounds;
  int ring_slots;
  std::uint64_t chunk_quads;
  std::uint64_t total_quads;
  const Quad* input;              // mapped host memory
  Quad* output;                   // mapped host memory
  std::uint64_t* rings;           // (stages + 1) x ring_slots x chunk_quads x 4 words, device memory, zeroed
  std::uint64_t* ready;           // (stages + 1) x teams_per_role, device memory: the shutdown message
  std::uint64_t* taken;           // (stages + 1) x teams_per_role, device memory
  const std::uint64_t* doorbell;  // mapped: chunks the host has released, | shutdown_bit at the end
  std::uint64_t* done;            // mapped: per consumer team (flag_stride apart), chunks written to the host, | shutdown_bit
  std::uint64_t* failure;         // mapped: per team (flag_stride apart), 1 + the chunk it gave up waiting for
  std::uint64_t timeout_ns;
  // Test hook (FERRY_FAULT_UNSEEN_FLAG): team 0 of this role never sees chunk unseen_chunk arrive.
  int unseen_role = -1;
  std::uint64_t unseen_chunk = 0;

  // True once `timeout_ns` passed since the first call of this wait; `since` starts at 0.
  FERRY_HD bool out_of_time(std::uint64_t& since) const { return stream::out_of_time(since, timeout_ns); }

  template <bool from_host>
  FERRY_HD Wait wait_for_chunk(const std::uint64_t* counter, std::uint64_t c) const {
    return wait_past<from_host>(counter, c, timeout_ns);
  }

  // Waits until the reader of ring slot c % ring_slots has taken the chunk that was there.
  FERRY_HD Wait wait_for_space(const std::uint64_t* taken_counter, std::uint64_t c) const {
    std::uint64_t since = 0;
    for (int polls = 1; load_acquire_device(taken_counter) + ring_slots <= c; ++polls) {
      if (polls % polls_per_clock_read == 0 && out_of_time(since)) return Wait::timed_out;
      spin_pause();
    }
    return Wait::go;
  }

  FERRY_HD static std::uint64_t tag_of(std::uint64_t c) { return ((c + 1) & 0xFFFFFFFFull) << 32; }

  // Team b's share of a chunk of `quads` quads: its share of a full chunk, cut
  // at the chunk's end. So a short last chunk keeps every team on the ring
  // words it uses for every other chunk. A team's `taken` count guards only
  // its own words; a share recut for the shorter chunk reached into another
  // team's, and overwrote words of the chunk before that the other team had
  // not read yet (a 256 MiB stream in 384 KiB chunks hung at its end on an H100).
  FERRY_HD Slice slice_of(std::uint64_t quads, int b) const {
    const Slice full = team_slice(chunk_quads, b, teams_per_role);
    return {full.lo < quads ? full.lo : quads, full.hi < quads ? full.hi : quads};
  }

  FERRY_HD std::uint64_t* slot(int ring, std::uint64_t c) const {
    return rings + (static_cast<std::uint64_t>(ring) * ring_slots + c % ring_slots) * chunk_quads * 4;
  }

  // Where half h (words 2h and 2h + 1) of quad q lives in a slot: plane h, 16 bytes a quad.
  FERRY_HD std::uint64_t half_at(std::uint64_t q, int h) const { return (static_cast<std::uint64_t>(h) * chunk_quads + q) * 2; }

  FERRY_HD static bool tagged(const std::uint64_t (&pair)[2], std::uint64_t tag) {
    return (pair[0] & 0xFFFFFFFF00000000ull) == tag && (pair[1] & 0xFFFFFFFF00000000ull) == tag;
  }

  // Reads quads [q, q + loads_in_flight * step) of a slice from a ring slot,
  // all loads first, then polls again only for halves that had not yet come.
  FERRY_HD Wait take_batch(const std::uint64_t* words, std::uint64_t base, std::uint64_t step, std::uint64_t hi,
                           std::uint64_t c, const std::uint64_t* shutdown_in, Quad (&held)[loads_in_flight]) const {
    std::uint64_t raw[loads_in_flight][2][2];
    FERRY_UNROLL
    for (int k = 0; k < loads_in_flight; ++k)
      if (base + k * step < hi)
        for (int h = 0; h < 2; ++h) load_pair_volatile(words + half_at(base + k * step, h), raw[k][h][0], raw[k][h][1]);
    const std::uint64_t tag = tag_of(c);
    std::uint64_t since = 0;
    // Every half still missing is loaded again in one wave: a poll costs one
    // round trip to L2, however many halves are late.
    for (int polls = 1;; ++polls) {
      bool complete = true;
      FERRY_UNROLL
      for (int k = 0; k < loads_in_flight; ++k)
        if (base + k * step < hi)
          for (int h = 0; h < 2; ++h) complete = complete && tagged(raw[k][h], tag);
      if (complete) break;
      if (polls % polls_per_clock_read == 0) {
        const std::uint64_t message = load_acquire_device(shutdown_in);
        if ((message & shutdown_bit) && (message & ~shutdown_bit) <= c) return Wait::shut_down;
        if (out_of_time(since)) return Wait::timed_out;
      }
      spin_pause();
      FERRY_UNROLL
      for (int k = 0; k < loads_in_flight; ++k)
        if (base + k * step < hi)
          for (int h = 0; h < 2; ++h)
            if (!tagged(raw[k][h], tag)) load_pair_volatile(words + half_at(base + k * step, h), raw[k][h][0], raw[k][h][1]);
    }
    FERRY_UNROLL
    for (int k = 0; k < loads_in_flight; ++k)
      for (int j = 0; j < 4; ++j) held[k].word[j] = static_cast<std::uint32_t>(raw[k][j / 2][j % 2]);
    return Wait::go;
  }

  FERRY_HD void put(std::uint64_t* words, std::uint64_t q, const Quad& value, std::uint64_t c) const {
    const std::uint64_t tag = tag_of(c);
    for (int h = 0; h < 2; ++h) store_pair_volatile(words + half_at(q, h), tag | value.word[2 * h], tag | value.word[2 * h + 1]);
  }

  // Tells the next role (or the host) that no chunk follows chunk c - 1.
  FERRY_HD void pass_shutdown(bool consumer, std::uint64_t* out, std::uint64_t c) const {
    if (consumer) store_release_system(out, c | shutdown_bit);
    else store_release_device(out, c | shutdown_bit);
  }

  FERRY_HD void give_up(int team_index, std::uint64_t c) const {
    store_release_system(failure + static_cast<std::uint64_t>(team_index) * flag_stride, c + 1);
  }

  // What a poll that never sees its flag does: waits out its timeout.
  FERRY_HD void wait_for_nothing() const {
    std::uint64_t since = 0;
    while (!out_of_time(since)) spin_pause();
  }

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    const int role = team.index() / teams_per_role;  // 0 producer, 1..stages, stages + 1 consumer
    const int b = team.index() % teams_per_role;
    const bool producer = role == 0, consumer = role == stages + 1;
    std::uint64_t* shutdown_out = consumer ? done + b * flag_stride : ready + role * teams_per_role + b;
    const std::uint64_t* shutdown_in = producer ? doorbell : ready + (role - 1) * teams_per_role + b;
    // Two waits per chunk, by two warps at once where the team has them: the
    // doorbell or the shutdown message (rank 0) and space in the ring it writes.
    const int space_waiter = team.size() > 32 ? 32 : 0;
    const std::uint64_t step = static_cast<std::uint64_t>(team.size());

    for (std::uint64_t c = 0;; ++c) {
      const std::uint64_t first = c * chunk_quads;
      const bool past_the_stream = first >= total_quads;  // no such chunk: only the shutdown message can come
      bool stop = false;
      if (team.rank() == 0 && role == unseen_role && b == 0 && c == unseen_chunk) {
        wait_for_nothing();
        give_up(team.index(), c);
        stop = true;
      } else if (team.rank() == 0 && (producer || past_the_stream)) {
        const Wait wait = producer ? wait_for_chunk<true>(shutdown_in, c) : wait_for_chunk<false>(shutdown_in, c);
        if (wait == Wait::shut_down) pass_shutdown(consumer, shutdown_out, c);
        if (wait == Wait::timed_out) give_up(team.index(), c);
        stop = wait != Wait::go;
      }
      if (team.rank() == space_waiter && !consumer && !stop && !past_the_stream &&
          wait_for_space(taken + role * teams_per_role + b, c) == Wait::timed_out) {
        give_up(team.index(), c);
        stop = true;
      }
      if (team.sync_or(stop)) return;

      const std::uint64_t quads = total_quads - first < chunk_quads ? total_quads - first : chunk_quads;
      const Slice slice = slice_of(quads, b);
      Wait mine = Wait::go;
      for (std::uint64_t base = slice.lo + team.rank(); base < slice.hi && mine == Wait::go; base += loads_in_flight * step) {
        Quad held[loads_in_flight];
        if (producer) {
          FERRY_UNROLL
          for (int k = 0; k < loads_in_flight; ++k)
            if (base + k * step < slice.hi) held[k] = input[first + base + k * step];
        } else {
          mine = take_batch(slot(role - 1, c), base, step, slice.hi, c, shutdown_in, held);
          if (mine != Wait::go) break;
        }
        FERRY_UNROLL
        for (int k = 0; k < loads_in_flight; ++k) {
          const std::uint64_t q = base + k * step;
          if (q >= slice.hi) continue;
          if (consumer) output[first + q] = held[k];
          else put(slot(role, c), q, producer ? held[k] : stage_quad(held[k], role - 1, 1, rounds), c);
        }
      }
      if (team.sync_or(mine != Wait::go)) {
        const bool timed_out = team.sync_or(mine == Wait::timed_out);
        if (team.rank() == 0) {
          if (timed_out) give_up(team.index(), c);
          else pass_shutdown(consumer, shutdown_out, c);
        }
        return;
      }
      if (team.rank() == 0) {
        // System scope for the consumer: its release orders the team's writes to host memory before the count.
        if (consumer) store_release_system(done + b * flag_stride, c + 1);
        if (!producer) store_release_device(taken + (role - 1) * teams_per_role + b, c + 1);
      }
    }
  }
};

// Enqueue the kernels above (stream_launch.cpp, compiled as CUDA when the CUDA backend is built).
void launch_stages(Stream& stream, const StageKernel& kernel, std::uint64_t quads);
void launch_zero_copy_chunk(Stream& stream, const ZeroCopyChunk& kernel, int teams);
void launch_persistent(Stream& stream, const PersistentPipeline& kernel);

}  // namespace ferry::stream
