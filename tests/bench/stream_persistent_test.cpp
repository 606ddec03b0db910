// The persistent design's kernel: how a team's warps are dealt to its roles,
// and the roles handing batches on while they run at once, as on a GPU.
#include "bench/stream/stream_persistent_kernel.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/launch.hpp"

namespace ferry::stream {
namespace {

struct Shape {
  int team_size, warp_threads, roles;
};

// Every role has exactly one player; a player's threads are whole warps, in
// a row, and agree on what they play; the producer's player is the largest.
TEST(StreamPersistent, EveryRoleOfATeamIsPlayedByExactlyOnePlayerOfWholeWarps) {
  for (const Shape s : {Shape{512, 32, 5},
                        {512, 32, 3},
                        {512, 32, 16},
                        {512, 32, 17},
                        {512, 32, 66},
                        {1, 32, 5},
                        {1, 32, 66},
                        {7, 1, 5},
                        {3, 1, 5},
                        {160, 32, 5},
                        {64, 32, 5}}) {
    const std::string shape = ::testing::PrintToString(std::vector<int>{s.team_size, s.warp_threads, s.roles});
    std::map<int, Player> players;  // by barrier
    std::map<int, int> threads_of;
    for (int rank = 0; rank < s.team_size; ++rank) {
      const Player p = player_of(rank, s.team_size, s.warp_threads, s.roles);
      ASSERT_GE(p.barrier, 1) << shape;
      ASSERT_LE(p.barrier, most_players) << shape;
      ASSERT_TRUE(p.rank >= 0 && p.rank < p.size) << shape << " rank " << rank;
      ASSERT_EQ(p.size % std::min(s.warp_threads, s.team_size), 0) << shape << ": whole warps";
      const auto [it, first] = players.emplace(p.barrier, p);
      if (!first) {
        EXPECT_EQ(it->second.first_role, p.first_role) << shape << " rank " << rank;
        EXPECT_EQ(it->second.roles, p.roles) << shape << " rank " << rank;
        EXPECT_EQ(it->second.size, p.size) << shape << " rank " << rank;
        EXPECT_EQ(p.rank, it->second.rank + threads_of[p.barrier]) << shape << ": threads in a row, rank " << rank;
      }
      ++threads_of[p.barrier];
    }
    std::vector<int> played(static_cast<std::size_t>(s.roles), 0);
    for (const auto& [barrier, p] : players) {
      EXPECT_EQ(threads_of[barrier], p.size) << shape << ": player " << barrier;
      EXPECT_GE(p.roles, 1) << shape;
      for (int r = p.first_role; r < p.first_role + p.roles; ++r) ++played[static_cast<std::size_t>(r)];
      EXPECT_GE(players.begin()->second.size, p.size) << shape << ": the producer's player is the largest";
    }
    EXPECT_EQ(players.begin()->second.first_role, 0) << shape << ": the producer comes first";
    EXPECT_EQ(std::count(played.begin(), played.end(), 1), s.roles) << shape << ": every role played once";
  }
}

// A team of host threads, each a warp of one, with named barriers: the
// emulator's team is a single thread, which plays every role in turn, so
// only a team like this runs the roles at once and tests their hand-offs.
class ThreadedTeams {
 public:
  bool wait(int barrier, int threads, bool predicate) {
    TeamBarrier* named;
    {
      const std::lock_guard lock(mutex_);
      named = &barriers_.try_emplace(barrier, threads).first->second;
    }
    return named->arrive_and_wait_or(predicate);
  }

 private:
  std::mutex mutex_;
  std::map<int, TeamBarrier> barriers_;  // by barrier; a map's entries stay where they are
};

struct ThreadedTeam {
  static constexpr int warp_threads = 1;
  int team_index, team_count, thread_rank, thread_count;
  std::byte* memory;
  ThreadedTeams* barriers;
  int index() const { return team_index; }
  int count() const { return team_count; }
  int rank() const { return thread_rank; }
  int size() const { return thread_count; }
  void sync() const { barriers->wait(0, thread_count, false); }
  bool sync_or(bool predicate) const { return barriers->wait(0, thread_count, predicate); }
  bool sync_or_among(int barrier, int threads, bool predicate) const {
    return barriers->wait(barrier, threads, predicate);
  }
  std::byte* shared() const { return memory; }
};

struct Case {
  int threads_per_team, teams, ring_slots;
  std::uint64_t batch_quads, chunk_quads, total_quads;
};

// Runs the kernel on teams of threads over a stream the host has released
// whole, then shut down; every quad must come out through every stage.
void expect_every_quad_through_every_stage(const Case& k) {
  const std::string name = ::testing::PrintToString(
      std::vector<std::uint64_t>{std::uint64_t(k.threads_per_team), std::uint64_t(k.teams), std::uint64_t(k.ring_slots),
                                 k.batch_quads, k.chunk_quads, k.total_quads});
  constexpr int stages = 3, rounds = 2;
  const std::uint64_t chunks = (k.total_quads + k.chunk_quads - 1) / k.chunk_quads;
  std::vector<Quad> input(k.total_quads), output(k.total_quads);
  for (std::uint64_t q = 0; q < k.total_quads; ++q)
    input[q] = Quad{{static_cast<std::uint32_t>(q * 4), static_cast<std::uint32_t>(q * 4 + 1), 7, 0xFFFFFFFFu}};
  const Quad poison{{0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF}};
  std::fill(output.begin(), output.end(), poison);
  // As the persistent pass lays them out: one doorbell, a done count per team, a failure word per role and team.
  const auto teams = static_cast<std::uint64_t>(k.teams);
  const FlagLayout layout{.doorbells = 1, .done = teams, .failures = teams * (stages + 2)};
  std::vector<std::uint64_t> flags(layout.words(), no_failure);
  const FlagWords shared = layout.at(flags.data());
  *shared.doorbells = chunks | shutdown_bit;  // every chunk released, then the shutdown message
  std::uint64_t relay = 0;
  const PersistentPipeline kernel{
      .stages = stages,
      .teams = k.teams,
      .rounds = rounds,
      .ring_slots = k.ring_slots,
      .batch_quads = k.batch_quads,
      .chunk_quads = k.chunk_quads,
      .total_quads = k.total_quads,
      .input = input.data(),
      .output = output.data(),
      .doorbell = shared.doorbells,
      .relay = &relay,
      .done = shared.done,
      .failure = shared.failures,
      .timeout_ns = 20'000'000'000ull,
  };
  std::vector<std::vector<std::byte>> memory(static_cast<std::size_t>(k.teams),
                                             std::vector<std::byte>(
                                                 PersistentPipeline::shared_bytes(k.ring_slots, k.batch_quads)));
  std::vector<ThreadedTeams> barriers(static_cast<std::size_t>(k.teams));
  std::vector<std::thread> threads;
  for (int t = 0; t < k.teams; ++t)
    for (int r = 0; r < k.threads_per_team; ++r)
      threads.emplace_back([&, t, r] {
        ThreadedTeam team{t,
                          k.teams,
                          r,
                          k.threads_per_team,
                          memory[static_cast<std::size_t>(t)].data(),
                          &barriers[static_cast<std::size_t>(t)]};
        kernel(team);
      });
  for (auto& thread : threads) thread.join();

  for (int t = 0; t < k.teams; ++t) {
    EXPECT_EQ(shared.done[t * flag_stride], chunks | shutdown_bit) << name << ": team " << t << "'s done count";
    for (int role = 0; role < stages + 2; ++role)
      EXPECT_EQ(shared.failures[(role * k.teams + t) * flag_stride], no_failure)
          << name << ": role " << role << " of team " << t;
  }
  for (std::uint64_t q = 0; q < k.total_quads; ++q) {
    const Quad expected = stage_quad(input[q], 0, stages, rounds);
    ASSERT_EQ(std::memcmp(&output[q], &expected, sizeof(Quad)), 0) << name << ": quad " << q;
  }
}

// 7 threads: a player per role, the producer's of 3. 3 threads: 3 players,
// two of which play two roles in turn. Rings of 2 and 3 slots wrap many
// times; a chunk of 10 quads over 3 teams leaves batches short, and the last
// chunk of 2 quads leaves a team with none of it.
TEST(StreamPersistent, TheRolesOfATeamHandEveryBatchOnWhileTheyRunAtOnce) {
  for (const Case k :
       {Case{7, 1, 2, 3, 10, 62}, Case{7, 3, 3, 2, 10, 52}, Case{3, 2, 2, 4, 16, 100}, Case{5, 2, 2, 1, 3, 11}})
    expect_every_quad_through_every_stage(k);
}

}  // namespace
}  // namespace ferry::stream
