#pragma once
// The persistent design's kernel: the seed's chain of roles, a producer (host
// input -> the team's ring), `stages` stage roles and a consumer (the ring ->
// host output, then the team's done count), played by the warps of every
// team and handing batches on through the team's on-chip memory.
#include <cstdint>

#include "bench/stream/stream_kernels.hpp"

namespace ferry {
class Stream;
}

namespace ferry::stream {

// The threads of one team that play one or more roles together, and this
// thread's place among them.
struct Player {
  int first_role;  // plays roles [first_role, first_role + roles), in turn on each batch
  int roles;
  int rank;     // among the player's threads
  int size;     // the player's threads
  int barrier;  // its named barrier: 1.., since the team's own is 0
};

// Named barriers 1..15 of a team, one per player.
constexpr int most_players = 15;

// Deals a team's warps to players: one player per role where there are warps
// enough, in equal shares with the spare warps to the producer, whose reads
// cross PCIe; fewer warps than roles, and a player plays neighbouring roles in
// turn. A team smaller than a warp (the emulator's single thread) is one
// player of every role.
FERRY_HD inline Player player_of(int rank, int team_size, int warp_threads, int roles) {
  const int warps = team_size / warp_threads;
  if (warps < 1) return {0, roles, rank, team_size, 1};
  int players = warps < roles ? warps : roles;
  if (players > most_players) players = most_players;
  const int share = warps / players, spare = warps - share * players;
  const int warp = rank / warp_threads;
  const int p = warp < share + spare ? 0 : 1 + (warp - share - spare) / share;
  const int first_warp = p == 0 ? 0 : share + spare + (p - 1) * share;
  const int first_role = p * roles / players;
  return {first_role, (p + 1) * roles / players - first_role, rank - first_warp * warp_threads,
          (p == 0 ? share + spare : share) * warp_threads, 1 + p};
}

// A warp's threads: 32 on the GPU; a test's team of host threads may say fewer.
template <class Team>
constexpr int warp_threads_of() {
  if constexpr (requires { Team::warp_threads; }) {
    return Team::warp_threads;
  } else {
    return 32;
  }
}

// Launched once per pass. Team b handles slice b of every chunk: no team
// waits for another but for team 0's relay of the doorbell, which the host
// rings with the chunks it has released; each team's consumer raises the
// team's done count per chunk.
//
// A team's slice moves in batches through a ring of `ring_slots` batches in
// its on-chip memory. Each slot has a step count: batch n (the team's n-th)
// takes slot n % ring_slots on its (n / ring_slots)-th turn there, and role r
// takes it when the count reaches turn x roles + r, does its part in place
// and adds one; the producer's next turn waits for the consumer's step. So a
// hand-off is a store and a poll of the multiprocessor's own memory, and
// every role of a team runs at once on the batches in its ring. Rings in
// device memory, between teams of each role, cost each hand-off a round trip
// to L2 and left a role's teams drifting apart: on an H100, 256 KiB chunks
// took 35-42 us at depth 1 and 37-40 at depth 2 that way, against fused's 15
// and 21 in the same runs; this way 17-19 and 23-26
// (docs/stream.md, "What was tried").
//
// A chunk with no quads for this team (a short last chunk) still sends one
// empty batch down the chain, so the consumer counts it; the shutdown message
// takes the place of the next chunk's first batch.
struct PersistentPipeline {
  static constexpr int threads_per_team = 512;

  int stages;
  int teams;
  int rounds;
  int ring_slots;  // at most most_ring_slots
  std::uint64_t batch_quads;
  std::uint64_t chunk_quads;
  std::uint64_t total_quads;
  const Quad* input;              // mapped host memory
  Quad* output;                   // mapped host memory
  const std::uint64_t* doorbell;  // mapped: chunks the host has released, | shutdown_bit at the end
  std::uint64_t* relay;           // device memory: the doorbell as team 0 saw it, for the other teams
  std::uint64_t* done;            // mapped: per team (flag_stride apart), chunks written to the host, | shutdown_bit
  std::uint64_t*
      failure;  // mapped: per role and team (role x teams + b, flag_stride apart), 1 + the chunk it gave up on
  std::uint64_t timeout_ns;
  // Test hook (FERRY_FAULT_UNSEEN_FLAG): role unseen_role of team 0 never sees chunk unseen_chunk arrive.
  int unseen_role = -1;
  std::uint64_t unseen_chunk = 0;

  // The ring's head: a step count per slot and the shutdown message's batch
  // number + 1, on a line of their own before the slots.
  static constexpr int most_ring_slots = 15;
  // Quads a stage or the consumer thread reads before it writes them: its
  // reads come from on-chip memory, so a few keep the multiply-adds fed.
  static constexpr int stage_wave = 4;
  static constexpr std::uint64_t head_bytes = 128;

  FERRY_HD static std::uint64_t shared_bytes(int ring_slots, std::uint64_t batch_quads) {
    return head_bytes + static_cast<std::uint64_t>(ring_slots) * batch_quads * quad_bytes;
  }

  FERRY_HD int roles() const { return stages + 2; }

  FERRY_HD void give_up(int role, int b, std::uint64_t c) const {
    store_release_system(failure + (static_cast<std::uint64_t>(role) * teams + b) * flag_stride, c + 1);
  }

  // Waits until the slot's count reaches `step`, for at most timeout_ns.
  FERRY_HD bool wait_for_step(const std::uint64_t* count, std::uint64_t step) const {
    std::uint64_t since = 0;
    for (int polls = 1; load_acquire_team(count) != step; ++polls) {
      if (polls % polls_per_clock_read == 0 && out_of_time(since, timeout_ns)) return false;
      spin_pause();
    }
    return true;
  }

  // What a role did with one batch: passed it on, passed on the shutdown
  // message instead (the player's later roles still have to), or gave up
  // waiting (and so does the player).
  enum class Turn { passed_on, shut_down, gave_up };

  // The player's waiter: until role `role` may take batch n, which holds
  // the shutdown message instead of data when the answer is shut_down.
  // The producer first learns of each chunk from the doorbell. Only team 0
  // polls host memory, across PCIe; it relays what it saw through L2 to the
  // others, as fused's first teams do. A poller per team crowded the link's
  // reads: on an H100, 256 KiB chunks took 80 us with 16 teams and 200 us
  // with 64, against 38 us with 8 (docs/stream.md, "What was tried").
  FERRY_HD Wait wait_for_turn(int b, int role, std::uint64_t c, std::uint64_t n, std::uint64_t my_step,
                              std::uint64_t* step_count, std::uint64_t* shutdown_batch, bool first_of_chunk) const {
    if (first_of_chunk && role == unseen_role && b == 0 && c == unseen_chunk) {
      std::uint64_t since = 0;
      while (!out_of_time(since, timeout_ns)) spin_pause();
      return Wait::timed_out;
    }
    Wait wait = Wait::go;
    if (role == 0 && first_of_chunk) {
      if (b == 0) {
        wait = wait_past<true>(doorbell, c, timeout_ns);
        // Released chunks, or all of them and the shutdown message: a team a chunk behind still goes.
        if (wait != Wait::timed_out && teams > 1)
          store_release_device(relay, wait == Wait::go ? c + 1 : c | shutdown_bit);
      } else {
        wait = wait_past<false>(relay, c, timeout_ns);
      }
      if (wait == Wait::timed_out) return wait;
    }
    if (!wait_for_step(step_count, my_step)) return Wait::timed_out;
    if (role == 0) {
      // Written before the producer's step, so whoever takes the step sees it.
      if (wait == Wait::shut_down) store_release_team(shutdown_batch, n + 1);
      return wait;
    }
    return load_acquire_team(shutdown_batch) == n + 1 ? Wait::shut_down : Wait::go;
  }

  template <class Team>
  FERRY_HD Turn play(const Team& team, const Player& me, int role, std::uint64_t c, std::uint64_t n, std::uint64_t lo,
                     std::uint64_t count, bool first_of_chunk) const {
    const int b = team.index();
    const bool producer = role == 0, consumer = role == stages + 1;
    const bool leader = me.rank == 0;  // the player's waiter
    auto* head = reinterpret_cast<std::uint64_t*>(team.shared());
    std::uint64_t* step_count = head + n % static_cast<std::uint64_t>(ring_slots);
    std::uint64_t* shutdown_batch = head + most_ring_slots;
    Quad* slot = reinterpret_cast<Quad*>(team.shared() + head_bytes) +
                 (n % static_cast<std::uint64_t>(ring_slots)) * batch_quads;
    const std::uint64_t turn = n / static_cast<std::uint64_t>(ring_slots);
    const std::uint64_t my_step = turn * static_cast<std::uint64_t>(roles()) + static_cast<std::uint64_t>(role);

    // One thread of the player waits and the others sleep at its barrier:
    // warps polling on-chip memory would take issue slots from the roles
    // at work on the same multiprocessor. The barrier orders what the
    // waiter acquired before every thread's reads.
    Wait wait = Wait::go;
    if (leader) wait = wait_for_turn(b, role, c, n, my_step, step_count, shutdown_batch, first_of_chunk);
    if (team.sync_or_among(me.barrier, me.size, wait == Wait::timed_out)) {
      if (leader) give_up(role, b, c);
      return Turn::gave_up;
    }
    const bool shutting_down = team.sync_or_among(me.barrier, me.size, wait == Wait::shut_down);

    if (!shutting_down) {
      const auto rank = static_cast<std::uint64_t>(me.rank), step = static_cast<std::uint64_t>(me.size);
      // The producer keeps all of a thread's reads of host memory in flight at once.
      if (producer) move_strided(input + lo, slot, rank, count, step, StageRange{});
      else if (consumer) move_strided<stage_wave>(slot, output + lo, rank, count, step, StageRange{});
      else move_strided<stage_wave>(slot, slot, rank, count, step, StageRange{role - 1, 1, rounds});
    }
    team.sync_or_among(me.barrier, me.size, false);  // every thread's part of the batch is done
    if (leader) {
      store_release_team(step_count, my_step + 1);
      if (consumer && shutting_down) store_release_system(done + b * flag_stride, c | shutdown_bit);
    }
    return shutting_down ? Turn::shut_down : Turn::passed_on;
  }

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    const Player me = player_of(team.rank(), team.size(), warp_threads_of<Team>(), roles());
    if (team.rank() == 0) {
      auto* head = reinterpret_cast<std::uint64_t*>(team.shared());
      for (int w = 0; w <= most_ring_slots; ++w) head[w] = 0;
    }
    team.sync();
    const int b = team.index();
    std::uint64_t n = 0;  // batches this team has sent down the chain
    for (std::uint64_t c = 0;; ++c) {
      const std::uint64_t first = c * chunk_quads;
      const std::uint64_t quads = first >= total_quads                ? 0
                                  : total_quads - first < chunk_quads ? total_quads - first
                                                                      : chunk_quads;
      const Slice slice = team_slice(quads, b, teams);
      const std::uint64_t length = slice.hi - slice.lo;
      const std::uint64_t batches = length == 0 ? 1 : (length + batch_quads - 1) / batch_quads;
      for (std::uint64_t k = 0; k < batches; ++k, ++n) {
        const std::uint64_t lo = slice.lo + k * batch_quads;
        const std::uint64_t count = length == 0 ? 0 : slice.hi - lo < batch_quads ? slice.hi - lo : batch_quads;
        bool shut_down = false;
        for (int role = me.first_role; role < me.first_role + me.roles; ++role) {
          const Turn turn = play(team, me, role, c, n, first + lo, count, k == 0);
          if (turn == Turn::gave_up) return;
          shut_down = turn == Turn::shut_down;
        }
        if (shut_down) return;
      }
      // Release at system scope: the player's writes to the host come before the count.
      if (me.first_role + me.roles == roles() && me.rank == 0) store_release_system(done + b * flag_stride, c + 1);
    }
  }
};

// Enqueues the kernel above (stream_launch.cpp, compiled as CUDA when the CUDA backend is built).
void launch_persistent(Stream& stream, const PersistentPipeline& kernel);
// How many of its teams, with `shared_bytes` of on-chip memory each, the stream's device holds at once.
int persistent_resident_teams(Stream& stream, std::uint64_t shared_bytes);

}  // namespace ferry::stream
