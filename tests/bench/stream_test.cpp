#include "bench/stream/stream.hpp"

#include <gtest/gtest.h>

#include "bench/plan_texts.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <tuple>
#include <vector>

#include "backend/emu/emu_backend.hpp"
#include "backend/launch.hpp"
#include "bench/stream/stream_designs.hpp"
#include "bench/stream/stream_fused_kernels.hpp"
#include "bench/stream/stream_kernels.hpp"
#include "bench/stream/stream_run.hpp"
#include "cli/run_ferry.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry::stream {
namespace {

// The link figures a model needs, as an emulated `link` run would give them.
model::DeviceProfile profile() {
  model::DeviceProfile p;
  p.h2d_Bps = p.d2h_Bps = 10e9;
  p.bidirectional_Bps = 16e9;
  p.zero_copy_read_Bps = p.zero_copy_write_Bps = 8e9;
  p.copy_engine_latency_h2d_s = p.copy_engine_latency_d2h_s = 2e-6;
  p.launch_and_sync_s = 10e-6;
  p.launch_per_kernel_s = 3e-6;
  p.flag_round_trip_s = 3e-6;
  p.device_copy_Bps = 100e9;
  return p;
}

StreamConfig small_config() {
  StreamConfig c;
  c.total_bytes = 256 << 10;
  c.chunk_bytes = {4 << 10, 64 << 10};
  c.depths = {1, 3};
  c.iterations = 2;
  c.warmup_chunks = 4;
  return c;
}

const Row& find_row(const WorkloadResult& r, const std::string& section, Design design, std::int64_t chunk,
                    std::int64_t depth) {
  for (const Row& row : r.rows) {
    if (row.section != section) continue;
    std::map<std::string, ParamValue> p(row.params.begin(), row.params.end());
    if (std::get<std::string>(p["design"]) == to_string(design) && std::get<std::int64_t>(p["chunk bytes"]) == chunk &&
        std::get<std::int64_t>(p["depth"]) == depth)
      return row;
  }
  throw std::runtime_error("no such row");
}

TEST(Stream, EveryDesignPassesEveryChunkAndDepthOnTheEmulator) {
  emu::EmuBackend backend;
  const StreamConfig config = small_config();
  Progress progress("stream", false);
  progress.keep_steps();
  const WorkloadResult result = run(backend, backend.describe_machine(), config, profile(), progress);
  EXPECT_TRUE(result.passed());
  EXPECT_EQ(progress.steps_taken(), progress.steps_expected()) << "the terminal line's count must end at its total";
  EXPECT_EQ(progress.kept_steps(), texts(plan_run(config, backend.capabilities())))
      << "--dry-run lists the steps the run takes";
  for (Design d : all_designs()) {
    if (d == Design::offload) {
      const Row& latency = find_row(result, "latency", d, config.total_bytes, 1);
      EXPECT_EQ(latency.sample_count(), 2u);  // one chunk per pass
      continue;
    }
    for (std::uint64_t chunk : config.chunk_bytes)
      for (int depth : config.depths) {
        const Row& latency = find_row(result, "latency", d, static_cast<std::int64_t>(chunk), depth);
        const Row& throughput = find_row(result, "throughput", d, static_cast<std::int64_t>(chunk), depth);
        EXPECT_EQ(latency.check, Check::passed) << to_string(d);
        EXPECT_EQ(latency.sample_count(), config.total_bytes / chunk * config.iterations)
            << "a latency per chunk per pass";
        EXPECT_EQ(throughput.sample_count(), static_cast<std::uint64_t>(config.iterations)) << "a wall time per pass";
        EXPECT_EQ(throughput.bytes_per_sample, static_cast<double>(config.total_bytes));
        ASSERT_TRUE(latency.model.has_value()) << to_string(d);
        EXPECT_GT(*latency.model, 0);
      }
  }
}

TEST(Stream, ThePersistentDesignsSplitChunksOverTeamsAndEveryDesignTakesAPartialLastChunk) {
  emu::EmuBackend backend;
  StreamConfig config = small_config();
  config.designs = {Design::persistent, Design::zerocopy, Design::graph, Design::fused, Design::pool};
  config.total_bytes = 100 << 10;  // 6.25 chunks of 16 KiB
  config.chunk_bytes = {16 << 10};
  config.depths = {2};
  config.persistent_teams = 3;
  config.stages = 5;
  const WorkloadResult result = run(backend, backend.describe_machine(), config, profile(), Progress("stream", false));
  EXPECT_TRUE(result.passed());
  for (Design d : config.designs)
    EXPECT_EQ(find_row(result, "latency", d, 16 << 10, 2).sample_count(), 7u * config.iterations) << to_string(d);
}

TEST(Stream, TheFusedDesignRunsAGroupOfTeamsPerRingSlotOrSharesGroupsWhenTheDeviceHoldsTooFew) {
  emu::EmuBackend backend;
  StreamConfig config = small_config();
  config.designs = {Design::fused};
  config.total_bytes = 1 << 20;
  config.chunk_bytes = {64 << 10};  // four teams' slices each
  config.depths = {1, 2, 5};        // the emulator holds 4 teams at once: 5 slots share 4 groups
  const WorkloadResult result = run(backend, backend.describe_machine(), config, profile(), Progress("stream", false));
  EXPECT_TRUE(result.passed());
  for (int depth : config.depths)
    EXPECT_EQ(find_row(result, "latency", Design::fused, 64 << 10, depth).sample_count(), 16u * config.iterations);
}

TEST(Stream, ThePoolDealsEveryChunkToItsWorkersAndFlagsEachChunkOnceWhateverItsSize) {
  emu::EmuBackend backend;
  StreamConfig config = small_config();
  config.designs = {Design::pool};
  config.total_bytes = (1 << 20) + (40 << 10);  // 16 chunks of 64 KiB, then one of 40 KiB
  config.chunk_bytes = {64 << 10};
  config.depths = {1, 2, 5};
  config.stages = 4;
  const WorkloadResult result = run(backend, backend.describe_machine(), config, profile(), Progress("stream", false));
  EXPECT_TRUE(result.passed());
  for (int depth : config.depths) {
    const Row& latency = find_row(result, "latency", Design::pool, 64 << 10, depth);
    EXPECT_EQ(latency.check, Check::passed);
    EXPECT_EQ(latency.sample_count(), 17u * config.iterations);
  }
  // Chunks of one and three quads: fewer quads than the pool has lanes, so a
  // worker has nothing in some chunks and must pass them by.
  config.total_bytes = 4 << 10;
  config.chunk_bytes = {16, 48};
  config.depths = {3};
  const WorkloadResult tiny = run(backend, backend.describe_machine(), config, profile(), Progress("stream", false));
  EXPECT_TRUE(tiny.passed());
  EXPECT_EQ(find_row(tiny, "latency", Design::pool, 16, 3).sample_count(), 256u * config.iterations);
  EXPECT_EQ(find_row(tiny, "latency", Design::pool, 48, 3).sample_count(), 86u * config.iterations);
}

// Every quad goes to exactly one lane, g % lanes, and a worker passes by
// exactly the chunks that hold none of its lanes: against counting each
// chunk's quads one by one, for chunks smaller than, equal to and larger
// than the pool, and a partial last chunk.
TEST(Stream, APoolWorkerSkipsExactlyTheChunksThatHoldNoneOfItsLanes) {
  for (const std::uint64_t chunk_quads : {1ull, 3ull, 100ull, 256ull, 1000ull, 1024ull, 1500ull, 5000ull}) {
    PoolStream pool{};
    pool.workers = 4;
    const int team_size = 256;
    pool.chunk_quads = chunk_quads;
    pool.total_quads = 20 * chunk_quads + chunk_quads / 2 + 1;
    pool.chunks = (pool.total_quads + chunk_quads - 1) / chunk_quads;
    const std::uint64_t lanes = 4 * team_size;
    for (int w = 0; w < pool.workers; ++w) {
      std::uint64_t next = pool.next_with_quads(0, w, team_size);
      for (std::uint64_t c = 0; c < pool.chunks; ++c) {
        bool holds = false;
        for (std::uint64_t g = c * chunk_quads; g < std::min((c + 1) * chunk_quads, pool.total_quads); ++g)
          holds = holds || g % lanes / team_size == static_cast<std::uint64_t>(w);
        EXPECT_EQ(pool.has_quads(c, static_cast<std::uint64_t>(w) * team_size, team_size, lanes), holds)
            << "chunk of " << chunk_quads << " quads, worker " << w << ", chunk " << c;
        if (c == next) {
          EXPECT_TRUE(holds) << "chunk of " << chunk_quads << " quads, worker " << w << ", chunk " << c;
          next = pool.next_with_quads(c + 1, w, team_size);
        } else {
          EXPECT_FALSE(holds) << "skipped: chunk of " << chunk_quads << " quads, worker " << w << ", chunk " << c;
        }
      }
      EXPECT_EQ(next, pool.chunks);
    }
  }
}

// A thread's share of a slice, moved in waves of 1, 2 or 8 quads: every quad
// of its stride below the end is computed once, whatever is left for the last
// wave, and nothing else is written.
template <int Wave>
void expect_every_quad_of_the_stride_moved_once(std::uint64_t first, std::uint64_t hi, std::uint64_t step) {
  constexpr std::uint64_t quads = 64;
  std::vector<Quad> from(quads), to(quads);
  for (std::uint64_t q = 0; q < quads; ++q) from[q] = Quad{static_cast<std::uint32_t>(q), 1, 2, 3};
  const Quad poison{0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF};
  std::fill(to.begin(), to.end(), poison);
  move_strided<Wave>(from.data(), to.data(), first, hi, step, StageRange{0, 2, 2});
  for (std::uint64_t q = 0; q < quads; ++q) {
    const bool mine = q >= first && q < hi && (q - first) % step == 0;
    const Quad expected = mine ? stage_quad(from[q], 0, 2, 2) : poison;
    EXPECT_EQ(std::memcmp(&to[q], &expected, sizeof(Quad)), 0)
        << "wave " << Wave << ", first " << first << ", end " << hi << ", step " << step << ": quad " << q;
  }
}

// A zero-copy chunk's flag rises when the last of its own teams finishes.
// The slot's count of finished teams runs over all its chunks, and a short
// last chunk has fewer teams than the chunks before it: a flag raised at a
// multiple of this chunk's teams came after 1 of 2 teams when 3 had run
// before, and the host counted the chunk as back with half of it unwritten.
TEST(Stream, AZeroCopyChunkIsFlaggedOnlyOnceEveryOneOfItsTeamsFinished) {
  for (const std::vector<int>& teams_per_chunk :
       std::vector<std::vector<int>>{{3, 2}, {3, 3, 2}, {4, 3}, {2, 3, 1}, {5, 5, 5}}) {
    std::uint64_t total_quads = 0;
    for (const int t : teams_per_chunk) total_quads += static_cast<std::uint64_t>(t) * 2;
    std::vector<Quad> input(total_quads), output(total_quads);
    for (std::uint64_t q = 0; q < total_quads; ++q) input[q] = Quad{{static_cast<std::uint32_t>(q), 1, 2, 3}};
    std::uint64_t finished = 0, done = 0, teams_before = 0, first = 0;
    for (std::size_t c = 0; c < teams_per_chunk.size(); ++c) {
      const int teams = teams_per_chunk[c];
      const std::uint64_t quads = static_cast<std::uint64_t>(teams) * 2;
      const ZeroCopyChunk kernel{input.data() + first, output.data() + first, quads, {0, 1, 1}, &finished, &done, c + 1,
                                 teams_before};
      for (int t = 0; t < teams; ++t) {
        EXPECT_EQ(done, c) << "chunks of " << ::testing::PrintToString(teams_per_chunk) << ": chunk " << c
                           << " flagged before its team " << t << " of " << teams << " ran";
        HostTeam team{.team_index = t, .team_count = teams};
        kernel(team);
      }
      EXPECT_EQ(done, c + 1) << "chunks of " << ::testing::PrintToString(teams_per_chunk) << ": chunk " << c
                             << " not flagged after all " << teams << " teams ran";
      teams_before += static_cast<std::uint64_t>(teams);
      first += quads;
    }
    for (std::uint64_t q = 0; q < total_quads; ++q) {
      const Quad expected = stage_quad(input[q], 0, 1, 1);
      ASSERT_EQ(std::memcmp(&output[q], &expected, sizeof(Quad)), 0) << "quad " << q;
    }
  }
}

TEST(Stream, AThreadMovesEveryQuadOfItsStrideOnceWhateverItsWave) {
  for (const auto& [first, hi, step] : {std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>{0, 64, 1},
                                        {3, 64, 4},
                                        {5, 50, 7},
                                        {2, 3, 8},
                                        {9, 9, 2},
                                        {1, 40, 13}}) {
    expect_every_quad_of_the_stride_moved_once<1>(first, hi, step);
    expect_every_quad_of_the_stride_moved_once<2>(first, hi, step);
    expect_every_quad_of_the_stride_moved_once<8>(first, hi, step);
  }
}

// A pool worker never reads a chunk whose doorbell has not rung. The run
// writes every chunk's input before the pass, so a read ahead of the doorbell
// would pass there unseen and shorten the latency it measures. Here each
// chunk's input is written just before its doorbell (poison until then),
// with one and two chunks in flight: a read ahead of its doorbell reads
// poison. (It failed two lookahead workers tried for the pool, docs/stream.md,
// "What was tried", when their check of the release was off by one or left
// out; their patches: `git show b9d1c92:docs/results/stream-experiments/`
// pool-lookahead.patch and pool-dealt/lookahead.patch.)
TEST(Stream, APoolWorkerNeverReadsAChunkBeforeItsDoorbell) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  constexpr std::uint32_t poison = 0xDEADBEEF;
  // One quad (fewer than the lanes), five, forty (several per lane) and 200 (several waves per lane).
  for (const int depth : {1, 2})
    for (const std::uint64_t chunk_quads : {1ull, 5ull, 40ull, 200ull}) {
      const std::uint64_t chunks = 12, total_quads = chunks * chunk_quads - chunk_quads / 2;
      const std::uint64_t slots = static_cast<std::uint64_t>(depth);
      Buffer input = backend.allocate_host(MemoryKind::mapped, total_quads * quad_bytes);
      Buffer output = backend.allocate_host(MemoryKind::mapped, total_quads * quad_bytes);
      std::fill_n(input.as<std::uint32_t>(), total_quads * 4, poison);
      std::fill_n(output.as<std::uint32_t>(), total_quads * 4, poison);
      // A doorbell and a done flag per slot, the failure word: the pool's pass lays them out so.
      const MappedFlags flags(backend, {.doorbells = slots, .done = slots, .failures = 1});
      const FlagWords host = flags.host(), device = flags.device();
      Buffer counters = backend.allocate_device(0, 3 * flag_stride * sizeof(std::uint64_t));
      stream->fill(counters.data(), 0, counters.bytes());
      const PoolStream pool{
          .stages = 2,
          .rounds = 2,
          .slots = depth,
          .workers = 2,  // with the watcher and the flagger, the 4 teams the emulator holds at once
          .chunks = chunks,
          .chunk_quads = chunk_quads,
          .total_quads = total_quads,
          .input = input.device_view_as<const Quad>(),
          .output = output.device_view_as<Quad>(),
          .doorbells = device.doorbells,
          .done = device.done,
          .released = counters.as<std::uint64_t>(),
          .past = counters.as<std::uint64_t>() + flag_stride,
          .failure = device.failures,
          .timeout_ns = 10'000'000'000ull,
      };
      launch_pool(*stream, pool);
      ShutdownOnExit shutdown = shutdown_by_doorbells(host.doorbells, depth, *stream);
      auto check_back = [&](std::uint64_t c) {
        wait_for_flag(host.done + (c % slots) * flag_stride, c + 1, 10, "pool", c, nullptr, {});
        const Quad* out = output.as<Quad>();
        for (std::uint64_t q = c * chunk_quads; q < std::min((c + 1) * chunk_quads, total_quads); ++q) {
          const Quad expected = stage_quad(input.as<Quad>()[q], 0, 2, 2);
          ASSERT_EQ(std::memcmp(&out[q], &expected, sizeof(Quad)), 0)
              << "depth " << depth << ", chunk " << c << " of " << chunk_quads << " quads, quad " << q
              << ": computed from input read before its doorbell";
        }
      };
      for (std::uint64_t c = 0; c < chunks; ++c) {
        if (c >= slots) check_back(c - slots);
        std::uint32_t* words = input.as<std::uint32_t>();
        for (std::uint64_t w = 4 * c * chunk_quads; w < 4 * std::min((c + 1) * chunk_quads, total_quads); ++w)
          words[w] = static_cast<std::uint32_t>(w * 2654435761u + 1);
        store_release_system(host.doorbells + (c % slots) * flag_stride, c + 1);
      }
      for (std::uint64_t c = chunks > slots ? chunks - slots : 0; c < chunks; ++c) check_back(c);
      shutdown.now();
    }
}

TEST(Stream, TheSummaryHasOneRowPerDesignAndTheNotesCompareWithOffloadAndTheFlag) {
  emu::EmuBackend backend;
  const WorkloadResult result =
      run(backend, backend.describe_machine(), small_config(), profile(), Progress("stream", false));
  std::set<std::string> designs;
  for (const Row& r : result.rows)
    if (r.section == "summary") designs.insert(std::get<std::string>(r.params.front().second));
  EXPECT_EQ(designs.size(), all_designs().size());
  auto has_note = [&](const std::string& start) {
    return std::any_of(result.notes.begin(), result.notes.end(),
                       [&](const std::string& n) { return n.rfind(start, 0) == 0; });
  };
  EXPECT_TRUE(has_note("lowest latency at >= 90% of the best throughput"));
  EXPECT_TRUE(has_note("lowest latency at the smallest chunk: "))
      << "the best design at 4 KiB, depth 1, against the flag";
}

// The note at the smallest chunk sets the design beside link's 4 KiB chunk
// round trip when the profile has it, and says nothing of it otherwise.
TEST(Stream, TheSmallestChunksNoteComparesWithTheChunkRoundTripWhenTheProfileHasIt) {
  emu::EmuBackend backend;
  StreamConfig config = small_config();
  config.designs = {Design::fused};
  config.depths = {1};
  auto smallest_chunk_note = [&](const model::DeviceProfile& p) {
    const WorkloadResult result = run(backend, backend.describe_machine(), config, p, Progress("stream", false));
    for (const std::string& n : result.notes)
      if (n.starts_with("lowest latency at the smallest chunk: ")) return n;
    return std::string("(none)");
  };
  const std::string without = smallest_chunk_note(profile());
  EXPECT_EQ(without.find("chunk round trip"), std::string::npos) << without;
  model::DeviceProfile with = profile();
  with.chunk_echo_s = 5e-6;
  const std::string note = smallest_chunk_note(with);
  const auto median = note.find("median ");
  ASSERT_NE(median, std::string::npos) << note;
  const double latency_us = std::stod(note.substr(median + 7));
  // The note divides the median before it is rounded to the 0.01 us it prints: 58.625 us reads 58.63 and 11.72x.
  std::smatch ratio;
  ASSERT_TRUE(std::regex_search(
      note, ratio,
      std::regex(R"(x the flag round trip \(3\.00 us\) and (\d+\.\d\d)x the 4 KiB chunk round trip \(5\.00 us\), )")))
      << note;
  EXPECT_NEAR(std::stod(ratio[1]), latency_us / 5.0, 0.005 / 5.0 + 0.005) << note;
}

TEST(Stream, EveryStageChangesTheDataAndTheStagesComposeInOrder) {
  const std::uint32_t x = input_word(12345, 7);
  EXPECT_NE(stage_function(x, 0, 2), x);
  EXPECT_NE(stage_function(x, 0, 2), stage_function(x, 1, 2)) << "a skipped or repeated stage must not pass";
  EXPECT_EQ(all_stages(x, 3, 2), stage_function(stage_function(stage_function(x, 0, 2), 1, 2), 2, 2));
  EXPECT_NE(input_word(12345, 7), input_word(12345, 8)) << "each pass streams fresh input";
}

// A row's design and chunk, or nothing for a row of no point (the compute ceiling).
std::optional<std::pair<std::string, std::int64_t>> point_of(const Row& row) {
  std::map<std::string, ParamValue> p(row.params.begin(), row.params.end());
  if (!p.count("design")) return std::nullopt;
  return std::pair{std::get<std::string>(p["design"]), std::get<std::int64_t>(p["chunk bytes"])};
}

TEST(Stream, ACorruptedWordFailsEveryDepthOfItsPointAndNoOtherRow) {
  emu::EmuBackend backend;
  StreamConfig config = small_config();
  config.designs = {Design::offload, Design::chunked, Design::pool};
  parse_corrupt_output("pool@64K", config);
  const WorkloadResult result = run(backend, backend.describe_machine(), config, profile(), Progress("stream", false));
  EXPECT_FALSE(result.passed());
  int failed = 0;
  for (const Row& row : result.rows) {
    const bool corrupted = point_of(row) == std::pair{std::string("pool"), std::int64_t{64 << 10}};
    EXPECT_EQ(row.check, corrupted ? Check::failed : Check::passed)
        << row.section << " " << ::testing::PrintToString(point_of(row));
    if (!corrupted) continue;
    failed += row.section == "latency" || row.section == "throughput";
    EXPECT_EQ(row.note, "1 of 131072 words wrong") << "one word of the first of two passes over 256 KiB";
  }
  EXPECT_EQ(failed, 4) << "a latency and a throughput row at each of the two depths";
}

TEST(Stream, TheSummaryAndItsNotesChooseOnlyAmongPointsThatPassed) {
  emu::EmuBackend backend;
  StreamConfig config = small_config();
  config.designs = {Design::offload, Design::pool};
  config.chunk_bytes = {64 << 10};  // pool's only chunk: both of its depths fail
  parse_corrupt_output("pool@64K", config);
  const WorkloadResult result = run(backend, backend.describe_machine(), config, profile(), Progress("stream", false));
  int summary_rows = 0;
  for (const Row& row : result.rows) {
    if (row.section != "summary") continue;
    ++summary_rows;
    EXPECT_EQ(row.check, Check::passed) << ::testing::PrintToString(point_of(row));
    ASSERT_TRUE(point_of(row).has_value());
    EXPECT_NE(point_of(row)->first, "pool") << "pool has no point that passed";
  }
  EXPECT_EQ(summary_rows, 1) << "offload's row alone";
  bool left_out = false;
  for (const std::string& note : result.notes) {
    EXPECT_EQ(note.find("pool at"), std::string::npos) << note;
    left_out = left_out || note.find("2 of 3 points FAILED their check") != std::string::npos;
  }
  EXPECT_TRUE(left_out) << "the notes say which points the summary leaves out";
}

TEST(Stream, TheCorruptionHookNamesAPointTheRunMeasuresOrIsRefusedSayingWhatItAccepts) {
  emu::EmuBackend backend;
  auto refused = [](std::string_view text, const std::string& message) {
    StreamConfig c = small_config();
    try {
      parse_corrupt_output(text, c);
      ADD_FAILURE() << text << " accepted: expected '" << message << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  refused("pool", "FERRY_FAULT_CORRUPT_OUTPUT='pool': no '@'; expected DESIGN@CHUNK, DESIGN one of offload, chunked");
  refused("fastest@64K", "FERRY_FAULT_CORRUPT_OUTPUT='fastest@64K': unknown design 'fastest'");
  refused("pool@lots", "FERRY_FAULT_CORRUPT_OUTPUT='pool@lots': malformed size 'lots'");

  StreamConfig c = small_config();
  c.designs = {Design::offload, Design::chunked};
  auto rejected = [&](std::string_view text, const std::string& message) {
    parse_corrupt_output(text, c);
    try {
      validate(backend, c);
      ADD_FAILURE() << text << " accepted: expected '" << message << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  const std::string accepts =
      "which this run does not measure: it accepts DESIGN@CHUNK of offload at 256 KiB; chunked at 4 KiB, 64 KiB";
  rejected("chunked@16K", "FERRY_FAULT_CORRUPT_OUTPUT names chunked at 16 KiB, " + accepts);
  rejected("pool@64K", "FERRY_FAULT_CORRUPT_OUTPUT names pool at 64 KiB, " + accepts);
  rejected("offload@64K", "FERRY_FAULT_CORRUPT_OUTPUT names offload at 64 KiB, " + accepts);
  for (const char* measured : {"offload@256K", "chunked@4K", "chunked@64KiB"}) {
    parse_corrupt_output(measured, c);
    EXPECT_NO_THROW(validate(backend, c)) << measured;
  }
}

// The hook FERRY_FAULT_CORRUPT_OUTPUT for one test.
class CorruptOutput {
 public:
  explicit CorruptOutput(const char* where) { ::setenv(corrupt_output_variable, where, 1); }
  ~CorruptOutput() { ::unsetenv(corrupt_output_variable); }
  CorruptOutput(const CorruptOutput&) = delete;
  CorruptOutput& operator=(const CorruptOutput&) = delete;
};

std::vector<std::string> quick_chunked(const char* command, std::vector<std::string> more) {
  std::vector<std::string> args = {command,        "stream", "--backend", "emu",     "--quick", "--quiet",
                                   "--total",      "256K",   "--chunks",  "16K,64K", "--depth", "1",
                                   "--iterations", "1",      "--design",  "chunked"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(Stream, TheCommandExitsOneOnACorruptedChunk) {
  const CorruptOutput corrupt("chunked@64K");
  const Outcome o = ferry(quick_chunked("run", {}));
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.out.find("1 of 65536 words wrong"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("stream: FAILED"), std::string::npos) << o.out;
}

TEST(Stream, TheCommandRefusesACorruptionOfNothingItMeasures) {
  for (const char* where : {"chunked@32K", "pool@64K", "chunked", "fast@64K"}) {
    const CorruptOutput corrupt(where);
    const Outcome o = ferry(quick_chunked("run", {}));
    EXPECT_EQ(o.code, 2) << where << ": " << o.err;
    EXPECT_NE(o.err.find("FERRY_FAULT_CORRUPT_OUTPUT"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("DESIGN@CHUNK"), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one message: " << o.err;
  }
}

TEST(Stream, ConfigurationsItCannotRunAreRejectedWithTheReason) {
  emu::EmuBackend backend;
  auto rejects = [&](StreamConfig c, const std::string& message) {
    try {
      validate(backend, c);
      ADD_FAILURE() << "accepted: expected '" << message << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  StreamConfig c = small_config();
  c.chunk_bytes = {1000};
  rejects(c, "multiple of 16 bytes");
  c = small_config();
  c.chunk_bytes = {1 << 20};
  c.chunk_sweep_given = true;
  rejects(c, "larger than the stream");
  c = small_config();
  c.depths = {0};
  rejects(c, "--depth must be at least 1");
  c = small_config();
  c.device = 9;
  rejects(c, "device 9 does not exist");
  c = small_config();
  c.total_bytes = 1ull << 62;
  rejects(c, "needs");
  EXPECT_THROW(design_from_string("fast"), UsageError);
  EXPECT_EQ(design_from_string("persistent"), Design::persistent);
}

TEST(Stream, EachDesignIsOneEntryOfTheTableAndItsNameLeadsBackToIt) {
  ASSERT_EQ(design_table().size(), all_designs().size());
  std::set<std::string_view> names;
  for (Design d : all_designs()) {
    const DesignInfo& design = design_info(d);
    EXPECT_EQ(design.design, d);
    EXPECT_EQ(to_string(d), design.name);
    EXPECT_EQ(design_from_string(design.name), d);
    ASSERT_NE(find_design(design.name), nullptr);
    EXPECT_EQ(find_design(design.name)->design, d);
    EXPECT_NE(design.path, nullptr) << design.name << " has no model";
    EXPECT_NE(design.pass, nullptr) << design.name << " has no run";
    names.insert(design.name);
  }
  EXPECT_EQ(names.size(), all_designs().size()) << "two designs share a name";
  EXPECT_EQ(find_design("all"), nullptr) << "`all` is every design, not one";
  EXPECT_EQ(find_design("fast"), nullptr);
}

TEST(Stream, TheCommandsHelpNamesTheDesignsOfTheTable) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "stream", "--help"}, {"tune", "stream", "--help"}}) {
    const Outcome help = ferry(args);
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find(design_names() + ", a comma list, or all"), std::string::npos)
        << args[0] << ": " << help.out;
  }
}

// A point holds its design's buffers per chunk in flight: pipeline two, chunked
// one, a design over mapped memory none; offload the stream once.
TEST(Stream, ARunIsRefusedWhenItsDesignsBuffersPerChunkInFlightExceedTheDevice) {
  emu::EmuBackend backend;
  StreamConfig c = small_config();
  // The emulator's device is half the host's memory, and the stream's input and output fit the host.
  c.total_bytes = backend.device_status(0).free_bytes * 3 / 8 / quad_bytes * quad_bytes;
  c.chunk_bytes = {c.total_bytes};
  c.depths = {1, 2};
  for (Design d :
       {Design::offload, Design::chunked, Design::zerocopy, Design::persistent, Design::fused, Design::pool}) {
    c.designs = {d};
    EXPECT_NO_THROW(validate(backend, c)) << to_string(d);
  }
  c.designs = {Design::chunked, Design::pipeline};
  try {
    validate(backend, c);
    ADD_FAILURE() << "pipeline's two buffers x depth 2 x 3/8 of the device were accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("this stream needs " + format_capacity(4 * c.total_bytes)), std::string::npos)
        << e.what();
  }
  c.depths = {1};
  EXPECT_NO_THROW(validate(backend, c)) << "pipeline at depth 1 holds 3/4 of the device";
}

// A design with a ring keeps as many chunks in flight as its depth, or as the pass has.
TEST(Stream, ARingHasASlotPerChunkInFlightAndNoMoreSlotsThanChunks) {
  EXPECT_EQ(chunks_in_flight({Design::fused, 4096, 4}, 100), 4u);
  EXPECT_EQ(chunks_in_flight({Design::fused, 4096, 4}, 3), 3u);
  EXPECT_EQ(chunks_in_flight({Design::offload, 1 << 20, 1}, 1), 1u);
}

// The flags a launched-once design shares with the host: doorbells, then done
// flags, then failure words, each on a line of its own, all zero at first.
TEST(Stream, TheSharedFlagsLieDoorbellsThenDoneThenFailuresEachOnItsOwnLine) {
  constexpr FlagLayout layout{.doorbells = 2, .done = 6, .failures = 1};
  std::vector<std::uint64_t> words(layout.words());
  const FlagWords at = layout.at(words.data());
  EXPECT_EQ(at.doorbells, words.data());
  EXPECT_EQ(at.done, words.data() + 2 * flag_stride);
  EXPECT_EQ(at.failures, words.data() + 8 * flag_stride);
  EXPECT_EQ(layout.words(), 9 * flag_stride);
  EXPECT_EQ(flag_stride * sizeof(std::uint64_t), 128u) << "a flag per 128-byte line";
  emu::EmuBackend backend;
  const MappedFlags flags(backend, layout);
  const std::uint64_t* host = flags.host().doorbells;
  for (std::uint64_t w = 0; w < layout.words(); ++w)
    EXPECT_EQ(host[w], 0u) << "word " << w << " starts rung, done or failed";
}

TEST(Stream, FlopsPerByteBecomeWholeMultiplyAddsPerWord) {
  StreamConfig c;
  c.flops_per_byte = 1;
  EXPECT_EQ(c.rounds_per_stage(), 2);  // 2 rounds x 2 operations / 4 bytes
  c.flops_per_byte = 0.1;
  EXPECT_EQ(c.rounds_per_stage(), 1);  // never zero: a stage always changes the data
  c.flops_per_byte = 16;
  EXPECT_EQ(c.rounds_per_stage(), 32);
}

TEST(StreamTune, PicksTheBestThroughputThatMeetsALatencyTargetOrSaysNoneDid) {
  emu::EmuBackend backend;
  StreamConfig config = small_config();
  config.designs = {Design::chunked, Design::zerocopy};
  config.iterations = 1;
  const TuneOutcome met =
      tune(backend, backend.describe_machine(), config, profile(), Target{.latency_s = 10.0}, Progress("tune", false));
  EXPECT_TRUE(met.met);
  auto ceiling_note = [](const TuneOutcome& o) {
    const auto n = std::find_if(o.result.notes.begin(), o.result.notes.end(),
                                [](const std::string& note) { return note.rfind("link's ceiling within", 0) == 0; });
    return n == o.result.notes.end() ? std::string() : *n;
  };
  EXPECT_NE(ceiling_note(met), "") << "a latency target shows what the link allows within it";
  EXPECT_NE(ceiling_note(met).find("SM designs: the profile has no zero-copy figures under load"), std::string::npos)
      << "a profile from before link measured them: " << ceiling_note(met);
  EXPECT_NE(ceiling_note(met).find("copy engines: the profile has no copies queued both ways"), std::string::npos);
  model::DeviceProfile measured = profile();
  measured.zero_copy_under_load = {{.teams = 4, .Bps = 20e9, .read_round_trip_s = 1e-6}};
  measured.queued_both_ways = {{.bytes = 64 << 10, .seconds = 8e-6}};
  const std::string both = ceiling_note(
      tune(backend, backend.describe_machine(), config, measured, Target{.latency_s = 10.0}, Progress("tune", false)));
  EXPECT_NE(both.find("SM designs 20.00 GB/s"), std::string::npos) << both;
  EXPECT_NE(both.find("copy engines 8.19 GB/s"), std::string::npos) << both;
  const auto choice =
      std::find_if(met.result.rows.begin(), met.result.rows.end(), [](const Row& r) { return r.section == "choice"; });
  ASSERT_NE(choice, met.result.rows.end());
  for (const Row& r : met.result.rows)
    if (r.section == "throughput")
      EXPECT_LE(r.value(), std::get<double>(choice->params.back().second) * 1e9 * (1 + 1e-9))
          << "the choice has the most throughput";

  const TuneOutcome missed =
      tune(backend, backend.describe_machine(), config, profile(), Target{.latency_s = 1e-12}, Progress("tune", false));
  EXPECT_FALSE(missed.met);
  EXPECT_NE(missed.result.notes.back().find("no configuration met"), std::string::npos);
}

TEST(StreamTune, NeverChoosesAConfigurationWhoseOutputWasWrong) {
  emu::EmuBackend backend;
  StreamConfig config = small_config();
  config.designs = {Design::chunked};
  config.depths = {1};
  config.iterations = 1;
  parse_corrupt_output("chunked@64K", config);
  const TuneOutcome outcome =
      tune(backend, backend.describe_machine(), config, profile(), Target{.latency_s = 10.0}, Progress("tune", false));
  EXPECT_FALSE(outcome.result.passed());
  EXPECT_TRUE(outcome.met) << "4 KiB chunks passed and met the target";
  const auto choice = std::find_if(outcome.result.rows.begin(), outcome.result.rows.end(),
                                   [](const Row& r) { return r.section == "choice"; });
  ASSERT_NE(choice, outcome.result.rows.end());
  EXPECT_EQ(point_of(*choice), std::pair(std::string("chunked"), std::int64_t{4 << 10}));
  EXPECT_EQ(choice->check, Check::passed);

  config.chunk_bytes = {64 << 10};  // nothing left that passed
  for (const Target target : {Target{.latency_s = 10.0}, Target{.throughput_Bps = 1.0}}) {
    const TuneOutcome none =
        tune(backend, backend.describe_machine(), config, profile(), target, Progress("tune", false));
    EXPECT_FALSE(none.met);
    EXPECT_FALSE(none.result.passed());
    EXPECT_NE(none.result.notes.back().find(": none passed its check"), std::string::npos) << none.result.notes.back();
  }
}

TEST(StreamTune, TheCommandExitsOneWhenAConfigurationFailedItsCheck) {
  const CorruptOutput corrupt("chunked@64K");
  const Outcome o = ferry(quick_chunked("tune", {"--latency", "10s"}));
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.out.find("stream: FAILED"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("run it: ferry run stream --design chunked --chunks 16384 --depth 1"), std::string::npos)
      << o.out;
}

}  // namespace
}  // namespace ferry::stream
