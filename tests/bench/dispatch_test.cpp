#include "bench/dispatch/dispatch.hpp"

#include <gtest/gtest.h>

#include "bench/plan_texts.hpp"
#include "bench/row_params.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "backend/select.hpp"
#include "bench/common/verify.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/dispatch_model.hpp"
#include "bench/dispatch/fused_sort.hpp"
#include "bench/dispatch/resident_sorter.hpp"
#include "bench/dispatch/sort_bench.hpp"
#include "bench/dispatch/sort_keys.hpp"
#include "bench/hooked_emu.hpp"
#include "cli/run_ferry.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ferry::dispatch {
namespace {

TEST(Bitonic, ThirtyTwoThousandKeysTakeOneHundredTwentyPasses) {
  EXPECT_EQ(bitonic_passes(32768).size(), 120u);
  EXPECT_EQ(bitonic_passes(2).size(), 1u);
  const std::vector<Pass> eight = bitonic_passes(8);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> expected = {{2, 1}, {4, 2}, {4, 1},
                                                                         {8, 4}, {8, 2}, {8, 1}};
  ASSERT_EQ(eight.size(), expected.size());
  for (std::size_t i = 0; i < eight.size(); ++i) {
    EXPECT_EQ(eight[i].block, expected[i].first) << i;
    EXPECT_EQ(eight[i].distance, expected[i].second) << i;
  }
}

TEST(SortKeys, FreshKeysEveryDrawWithDuplicates) {
  std::vector<std::uint32_t> a(4096), b(4096);
  fill_keys(a.data(), a.size(), 0);
  fill_keys(b.data(), b.size(), 1);
  EXPECT_NE(a, b);
  EXPECT_LT(std::set<std::uint32_t>(a.begin(), a.end()).size(), a.size() - 100) << "some keys repeat";
  EXPECT_GT(*std::max_element(a.begin(), a.end()), 1u << 31) << "keys span the 32-bit range";
}

TEST(SortKeys, TheReferenceIsStdSortAlsoWhenSortedInPieces) {
  std::vector<std::uint32_t> keys((1 << 22) + 3);  // several pieces on a multi-core host, and a ragged end
  fill_keys(keys.data(), keys.size(), 7);
  std::vector<std::uint32_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(sorted_reference(keys.data(), keys.size()), expected);
}

TEST(SortKeys, TheCheckPassesTheInputsKeysInOrderAndNothingElseThatIsSorted) {
  const std::vector<std::uint32_t> in = {7, 3, 3, 0xFFFFFFFFu, 0, 12};
  const auto check = [&](const std::vector<std::uint32_t>& out) {
    return holds_the_input_sorted(in.data(), out.data(), in.size());
  };
  EXPECT_TRUE(check({0, 3, 3, 7, 12, 0xFFFFFFFFu}));
  EXPECT_FALSE(check({0, 3, 7, 7, 12, 0xFFFFFFFFu})) << "sorted, but a 3 became a 7: not the input's keys";
  EXPECT_FALSE(check({0, 3, 3, 7, 12, 13})) << "sorted, with one key changed";
  EXPECT_FALSE(check({0, 0, 3, 3, 7, 12})) << "sorted, the largest key lost and the smallest doubled";
  const std::uint32_t poison = 0x01010101u * poison_byte;
  EXPECT_FALSE(check(std::vector<std::uint32_t>(in.size(), poison))) << "the all-poison output is sorted too";
  EXPECT_FALSE(check({0, 3, 7, 3, 12, 0xFFFFFFFFu})) << "the input's keys, out of order";
}

TEST(FusedPlan, ThirtyTwoThousandKeysInTilesOf2048TakeTenSteps) {
  const std::vector<FusedStep> steps = fused_steps(32768, 2048);
  ASSERT_EQ(steps.size(), 10u) << "1 + (1+1) for 4096 + (1+1) for 8192 + (1+1) for 16384 + (2+1) for 32768";
  EXPECT_TRUE(steps[0].on_chip);
  EXPECT_EQ(steps[0].block_first, 2u);
  EXPECT_EQ(steps[0].block_last, 2048u);
  // Stage 32768's long passes: distances 2^14..2^12 in one group, then 2^11 alone, then the rest on chip.
  EXPECT_FALSE(steps[7].on_chip);
  EXPECT_EQ(steps[7].block_first, 32768u);
  EXPECT_EQ(steps[7].group.hi, 14);
  EXPECT_EQ(steps[7].group.lo, 12);
  EXPECT_EQ(steps[8].group.hi, 11);
  EXPECT_EQ(steps[8].group.lo, 11);
  EXPECT_LE(steps[8].group.low, 11);
  EXPECT_GE(steps[8].group.low + steps[8].group.width, 12) << "the group holds the pass's bit";
  EXPECT_TRUE(steps[9].on_chip);
  EXPECT_EQ(fused_steps(32768, 32768).size(), 1u) << "one tile: the whole sort on chip";
  EXPECT_EQ(fused_steps(2, 2).size(), 1u);
}

TEST(FusedPlan, AGroupHoldsEightKeysThatDifferOnlyInItsBits) {
  const Group group = group_for(5, 4, 12);  // passes on bits 5 and 4 among 12-bit indices
  EXPECT_EQ(group.width, 3);
  EXPECT_EQ(group.low, 3);
  std::set<std::uint32_t> seen;
  for (std::uint32_t g = 0; g < (1u << 12) / 8; ++g)
    for (std::uint32_t k = 0; k < 8; ++k) {
      const std::uint32_t key = group_key(g, k, group);
      EXPECT_EQ(key & ~(7u << 3), group_key(g, 0, group)) << "only bits 3..5 vary within a group";
      seen.insert(key);
    }
  EXPECT_EQ(seen.size(), 4096u) << "the groups cover every key once";
  EXPECT_EQ(group_for(1, 0, 2).width, 2) << "fewer than 8 keys: a smaller group";
}

// Sorts fresh keys on the backend in the given shape and compares with std::sort.
std::vector<std::uint32_t> sort_on(Backend& backend, std::uint64_t count, Rung shape, std::uint64_t tile = 2048) {
  tile = std::min(tile, count);
  std::vector<std::uint32_t> keys(count);
  fill_keys(keys.data(), count, count);
  auto stream = backend.make_stream(0);
  Buffer device = backend.allocate_device(0, count * 4);
  Buffer host = backend.allocate_host(MemoryKind::pinned, count * 4);
  std::copy(keys.begin(), keys.end(), host.as<std::uint32_t>());
  stream->copy(device.data(), host.data(), host.bytes());
  auto* d = device.as<std::uint32_t>();
  const bool zero_copy = shape == Rung::zerocopy || shape == Rung::cluster;
  Buffer out = backend.allocate_host(zero_copy ? MemoryKind::mapped : MemoryKind::pinned, count * 4);
  std::fill_n(out.as<std::uint32_t>(), count, 0xA5A5A5A5u);
  if (zero_copy) {  // no copies: the first kernel reads `in`, the last writes `out`
    Buffer in = backend.allocate_host(MemoryKind::mapped, count * 4);
    std::copy(keys.begin(), keys.end(), in.as<std::uint32_t>());
    stream->fill(device.data(), 0xA5, device.bytes());
    if (shape == Rung::cluster)
      enqueue_cluster_sort(*stream, in.device_view_as<std::uint32_t>(), out.device_view_as<std::uint32_t>(), count,
                           tile);
    else
      enqueue_fused_sort(*stream, in.device_view_as<std::uint32_t>(), d, out.device_view_as<std::uint32_t>(), count,
                         tile, true);
    stream->synchronize();
    EXPECT_TRUE(std::equal(keys.begin(), keys.end(), in.as<std::uint32_t>())) << "the input is only read";
    return {out.as<std::uint32_t>(), out.as<std::uint32_t>() + count};
  }
  if (shape == Rung::fused) {
    for (const FusedStep& step : fused_steps(count, tile)) enqueue_fused_step(*stream, d, count, tile, step, true);
  } else if (shape == Rung::persistent) {
    enqueue_persistent(*stream, d, count, tile, std::min(3, persistent_capacity(*stream, tile)));
  } else if (shape == Rung::onchip) {
    enqueue_on_chip(*stream, d, count);
  } else {
    for (const Pass& pass : bitonic_passes(count)) enqueue_pass(*stream, d, count, pass, shape == Rung::pdl);
  }
  stream->copy(out.data(), device.data(), out.bytes());
  stream->synchronize();
  return {out.as<std::uint32_t>(), out.as<std::uint32_t>() + count};
}

std::vector<std::uint32_t> sorted_keys(std::uint64_t count) {
  std::vector<std::uint32_t> expected(count);
  fill_keys(expected.data(), count, count);
  std::sort(expected.begin(), expected.end());
  return expected;
}

void check_every_shape_sorts(Backend& backend) {
  for (Rung shape : {Rung::nohostsync, Rung::pdl, Rung::fused, Rung::persistent, Rung::onchip, Rung::zerocopy})
    for (std::uint64_t count : {2ull, 8ull, 1024ull, 32768ull})
      EXPECT_EQ(sort_on(backend, count, shape), sorted_keys(count)) << plan(shape).name << ", " << count << " keys";
  // Tiles smaller than a group, of one group, and of several long steps per stage.
  for (Rung shape : {Rung::fused, Rung::persistent, Rung::zerocopy})
    for (std::uint64_t tile : {2ull, 4ull, 8ull, 16ull, 64ull, 4096ull})
      EXPECT_EQ(sort_on(backend, 32768, shape, tile), sorted_keys(32768)) << plan(shape).name << ", tiles of " << tile;
  // One cluster holds every key: one team, up to as many as a cluster holds, in tiles of each size above.
  const auto most = static_cast<std::uint64_t>(backend.device_features(0).cluster_teams);
  for (std::uint64_t tile : {2ull, 4ull, 8ull, 16ull, 64ull, 2048ull, 4096ull})
    for (std::uint64_t count : {tile, 2 * tile, most * tile})
      EXPECT_EQ(sort_on(backend, count, Rung::cluster, tile), sorted_keys(count))
          << "+cluster, " << count << " keys in tiles of " << tile;
}

// One resident cluster sorts fresh keys again and again: each sort must read
// the keys the host wrote for it, not an earlier sort's, and write every key.
void check_resident_sorts(Backend& backend) {
  const auto most = static_cast<std::uint64_t>(backend.device_features(0).cluster_teams);
  for (std::uint64_t tile : {4ull, 64ull, 2048ull})
    for (std::uint64_t count : {tile, most * tile}) {
      Buffer in = backend.allocate_host(MemoryKind::mapped, count * 4);
      Buffer out = backend.allocate_host(MemoryKind::mapped, count * 4);
      ResidentSorter sorter(backend, 0, in, out, count, tile);
      for (std::uint64_t draw = 1; draw <= 3; ++draw) {
        fill_keys(in.as<std::uint32_t>(), count, draw);
        std::fill_n(out.as<std::uint32_t>(), count, 0xA5A5A5A5u);
        sorter.sort();
        EXPECT_EQ(std::vector<std::uint32_t>(out.as<std::uint32_t>(), out.as<std::uint32_t>() + count),
                  sorted_reference(in.as<std::uint32_t>(), count))
            << count << " keys in tiles of " << tile << ", sort " << draw;
      }
    }
}

TEST(Bitonic, EveryShapeSortsLikeStdSortOnTheEmulator) { check_every_shape_sorts(*make_backend("emu")); }

TEST(Bitonic, AResidentClusterSortsFreshKeysEveryTimeOnTheEmulator) { check_resident_sorts(*make_backend("emu")); }

TEST(Bitonic, AResidentClusterSortsFreshKeysEveryTimeOnTheGpu) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << "no GPU here: " << cuda_unavailable_reason();
  check_resident_sorts(*make_backend("cuda"));
}

TEST(Bitonic, EveryShapeSortsLikeStdSortOnTheGpu) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << "no GPU here: " << cuda_unavailable_reason();
  check_every_shape_sorts(*make_backend("cuda"));
}

TEST(Bitonic, OneFusedStepLeftOutLeavesTheKeysUnsorted) {
  auto backend = make_backend("emu");
  const std::uint64_t count = 4096, tile = 256;
  std::vector<std::uint32_t> keys(count);
  fill_keys(keys.data(), count, 5);
  std::vector<FusedStep> steps = fused_steps(count, tile);
  for (std::size_t skip = 0; skip < steps.size(); ++skip) {
    auto stream = backend->make_stream(0);
    Buffer device = backend->allocate_device(0, count * 4);
    std::copy(keys.begin(), keys.end(), device.as<std::uint32_t>());
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (i != skip) enqueue_fused_step(*stream, device.as<std::uint32_t>(), count, tile, steps[i], false);
    stream->synchronize();
    EXPECT_FALSE(std::is_sorted(device.as<std::uint32_t>(), device.as<std::uint32_t>() + count)) << "step " << skip;
  }
}

TEST(Bitonic, ATileLargerThanTheCompiledStagesIsRefusedNotLeftUnsorted) {
  auto backend = make_backend("emu");
  auto stream = backend->make_stream(0);
  const std::uint64_t tile = 2 * largest_tile;
  const FusedStep sort_tiles{true, 2, tile, {}};
  try {
    enqueue_fused_step(*stream, nullptr, tile, tile, sort_tiles, false);
    ADD_FAILURE() << "a tile of " << tile << " keys was enqueued";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("compiled for at most 65536"), std::string::npos) << e.what();
  }
  EXPECT_THROW(enqueue_persistent(*stream, nullptr, tile, tile, 1), RuntimeFailure);
}

TEST(Bitonic, OnePassLeftOutLeavesTheKeysUnsorted) {
  auto backend = make_backend("emu");
  const std::uint64_t count = 1024;
  std::vector<std::uint32_t> keys(count);
  fill_keys(keys.data(), count, 3);
  auto stream = backend->make_stream(0);
  Buffer device = backend->allocate_device(0, count * 4);
  std::copy(keys.begin(), keys.end(), device.as<std::uint32_t>());
  std::vector<Pass> passes = bitonic_passes(count);
  passes.pop_back();
  for (const Pass& pass : passes) enqueue_pass(*stream, device.as<std::uint32_t>(), count, pass, false);
  stream->synchronize();
  EXPECT_FALSE(std::is_sorted(device.as<std::uint32_t>(), device.as<std::uint32_t>() + count));
}

TEST(DispatchLadder, RungsAreNamedWithOrWithoutTheirPlus) {
  EXPECT_EQ(parse_rung("graph"), Rung::graph);
  EXPECT_EQ(parse_rung("+graph"), Rung::graph);
  EXPECT_EQ(parse_rungs("+onchip,baseline,+graph,graph"),
            (std::vector<Rung>{Rung::baseline, Rung::graph, Rung::onchip}))
      << "ladder order, each once";
  try {
    parse_rung("warp");
    FAIL() << "an unknown rung was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown rung 'warp'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("+persistent"), std::string::npos) << "names the rungs there are";
  }
  EXPECT_THROW(parse_rungs("baseline,,+graph"), UsageError);
}

TEST(DispatchLadder, EachRungAddsOneChange) {
  EXPECT_TRUE(plan(Rung::baseline).fresh_events);
  EXPECT_FALSE(plan(Rung::prealloc).fresh_events);
  EXPECT_TRUE(plan(Rung::prealloc).event_per_kernel);
  EXPECT_FALSE(plan(Rung::nohostsync).event_per_kernel);
  EXPECT_TRUE(plan(Rung::graph).graph);
  EXPECT_EQ(plan(Rung::graph).host, MemoryKind::pageable);
  EXPECT_EQ(plan(Rung::pinned).host, MemoryKind::pinned);
  EXPECT_TRUE(plan(Rung::pdl).graph && plan(Rung::pdl).programmatic);
  EXPECT_TRUE(plan(Rung::fused).graph && plan(Rung::fused).programmatic && plan(Rung::fused).fused);
  EXPECT_TRUE(plan(Rung::persistent).fused && plan(Rung::persistent).one_kernel() && !plan(Rung::persistent).graph);
  EXPECT_TRUE(plan(Rung::onchip).one_kernel());
  EXPECT_TRUE(plan(Rung::zerocopy).fused && plan(Rung::zerocopy).programmatic && plan(Rung::zerocopy).zero_copy);
  EXPECT_EQ(plan(Rung::zerocopy).host, MemoryKind::mapped);
}

TEST(DispatchLadder, ARungIsSkippedByWhatTheDeviceLacks) {
  const Capabilities graphs{.gpu_timings = true, .graphs = true, .mapped_memory = true};
  const DeviceFeatures hopper{
      .programmatic_launch = true, .all_teams_at_once = true, .team_shared_bytes = 227 << 10, .cluster_teams = 16};
  for (Rung rung : ladder) EXPECT_EQ(unavailable_reason(rung, 32768, 2048, graphs, hopper), "") << plan(rung).name;
  EXPECT_NE(
      unavailable_reason(Rung::cluster, 65536, 2048, graphs, hopper).find("32 teams; one cluster holds at most 16"),
      std::string::npos);
  EXPECT_EQ(unavailable_reason(Rung::cluster, 65536, 4096, graphs, hopper), "") << "larger tiles, fewer teams";
  EXPECT_EQ(unavailable_reason(Rung::cluster, 1024, 2048, graphs, hopper), "") << "one team of every key";
  EXPECT_NE(unavailable_reason(Rung::onchip, 65536, 2048, graphs, hopper).find("264 KiB"), std::string::npos);
  EXPECT_EQ(unavailable_reason(Rung::fused, 65536, 2048, graphs, hopper), "") << "the tile fits, the keys need not";
  EXPECT_NE(unavailable_reason(Rung::persistent, 1 << 20, 65536, graphs, hopper).find("264 KiB"), std::string::npos)
      << "a tile too large for on-chip memory";
  DeviceFeatures future = hopper;  // more on-chip memory than the stages are compiled for
  future.team_shared_bytes = std::size_t{1} << 30;
  EXPECT_EQ(unavailable_reason(Rung::fused, 1 << 20, 65536, graphs, future), "");
  EXPECT_NE(unavailable_reason(Rung::fused, 1 << 20, 131072, graphs, future).find("compiled for at most 65536"),
            std::string::npos);

  DeviceFeatures older = hopper;
  older.programmatic_launch = false;
  older.all_teams_at_once = false;
  older.cluster_teams = 0;
  EXPECT_NE(unavailable_reason(Rung::cluster, 32768, 2048, graphs, older).find("clusters"), std::string::npos);
  EXPECT_NE(unavailable_reason(Rung::pdl, 32768, 2048, graphs, older).find("programmatic"), std::string::npos);
  EXPECT_NE(unavailable_reason(Rung::persistent, 32768, 2048, graphs, older).find("cooperative"), std::string::npos);
  Capabilities no_graphs = graphs;
  no_graphs.graphs = false;
  for (Rung rung : {Rung::graph, Rung::pinned, Rung::pdl, Rung::fused})
    EXPECT_NE(unavailable_reason(rung, 32768, 2048, no_graphs, hopper).find("graphs"), std::string::npos);
  EXPECT_EQ(unavailable_reason(Rung::nohostsync, 32768, 2048, no_graphs, older), "");
  Capabilities no_mapped = graphs;
  no_mapped.mapped_memory = false;
  EXPECT_NE(unavailable_reason(Rung::zerocopy, 32768, 2048, no_mapped, hopper).find("mapped"), std::string::npos);
  EXPECT_EQ(unavailable_reason(Rung::fused, 32768, 2048, no_mapped, hopper), "");
}

model::DeviceProfile profile() {
  model::DeviceProfile p;
  p.h2d_Bps = p.d2h_Bps = 100;
  p.pageable_h2d_Bps = p.pageable_d2h_Bps = 50;
  p.copy_engine_latency_h2d_s = p.copy_engine_latency_d2h_s = 1;
  p.launch_and_sync_s = 10;
  p.launch_per_kernel_s = 4;
  p.graph_per_kernel_s = 2;
  p.sync_wakeup_s = 3;
  p.grid_barrier_s = 0.5;
  p.cluster_barrier_s = 0.25;
  p.flag_round_trip_s = 1.5;
  p.zero_copy_read_Bps = 20;
  p.zero_copy_write_Bps = 40;
  p.mapped_read_latency_s = 0.25;
  p.device_copy_Bps = 1000;
  return p;
}

TEST(DispatchModel, KernelsTimesTheirLaunchCostPlusCopiesPlusPasses) {
  // 100 keys = 400 B; 6 passes.
  const Dispatches six{.kernels = 6};
  const auto baseline = model_rung(plan(Rung::baseline), 100, six, profile());
  ASSERT_TRUE(baseline);
  EXPECT_DOUBLE_EQ(baseline->dispatch_s, 6 * 10);
  EXPECT_DOUBLE_EQ(baseline->copies_s, 1 + 400.0 / 50 + 1 + 400.0 / 50);
  EXPECT_DOUBLE_EQ(baseline->compute_s, 6 * 400.0 / 1000);
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::nohostsync), 100, six, profile())->dispatch_s, 6 * 4 + 3);
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::graph), 100, six, profile())->dispatch_s, 6 * 2 + 3);
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::pinned), 100, six, profile())->copies_s, 1 + 4 + 1 + 4);
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::pdl), 100, six, profile())->dispatch_s, 6 * 2 + 3)
      << "no programmatic figure in the profile: the plain graph's";
  const auto on_chip = model_rung(plan(Rung::onchip), 100, {.kernels = 1}, profile());
  EXPECT_DOUBLE_EQ(on_chip->dispatch_s, 10);
  EXPECT_DOUBLE_EQ(on_chip->compute_s, 400.0 / 1000) << "only the load and the store reach device memory";

  model::DeviceProfile no_pageable = profile();
  no_pageable.pageable_h2d_Bps = 0;
  EXPECT_FALSE(model_rung(plan(Rung::baseline), 100, six, no_pageable)) << "no pageable rate, no model";
  EXPECT_TRUE(model_rung(plan(Rung::pinned), 100, six, no_pageable));
}

TEST(DispatchModel, FusedRungsPayTheirStepsAsProgrammaticNodesOrGridBarriers) {
  model::DeviceProfile p = profile();
  p.programmatic_graph_per_kernel_s = 1.5;
  const auto fused = model_rung(plan(Rung::fused), 100, {.kernels = 4}, p);
  ASSERT_TRUE(fused);
  EXPECT_DOUBLE_EQ(fused->dispatch_s, 4 * 1.5 + 3);
  EXPECT_DOUBLE_EQ(fused->compute_s, 4 * 400.0 / 1000) << "each step reads and writes every key once";
  EXPECT_NE(fused->basis.find("4 programmatic graph nodes"), std::string::npos) << fused->basis;
  model::DeviceProfile dependent = p;  // kernels that wait for the one before's data: what a chain of passes pays
  dependent.dependent_programmatic_graph_per_kernel_s = 1.75;
  dependent.dependent_graph_per_kernel_s = 2.5;
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::fused), 100, {.kernels = 4}, dependent)->dispatch_s, 4 * 1.75 + 3);
  EXPECT_NE(model_rung(plan(Rung::fused), 100, {.kernels = 4}, dependent)->basis.find("4 dependent programmatic"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::graph), 100, {.kernels = 4}, dependent)->dispatch_s, 4 * 2.5 + 3);
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::nohostsync), 100, {.kernels = 4}, dependent)->dispatch_s, 4 * 4 + 3)
      << "stream launches are the host's pace, not the chain's";
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::fused), 100, {.kernels = 4}, dependent)->compute_s, 4 * 400.0 / 1000)
      << "a profile that does not say how many bytes the chain swept: every step's sweep is added";
  dependent.dependent_kernel_bytes = 100;
  const auto swept = model_rung(plan(Rung::fused), 100, {.kernels = 4}, dependent);
  EXPECT_DOUBLE_EQ(swept->compute_s, 4 * 300.0 / 1000) << "a node's figure already holds 100 of each step's 400 bytes";
  EXPECT_NE(swept->basis.find("beyond the 100 B"), std::string::npos) << swept->basis;
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::pdl), 100, {.kernels = 4}, dependent)->compute_s, 4 * 300.0 / 1000);
  dependent.dependent_kernel_bytes = 4096;
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::graph), 100, {.kernels = 4}, dependent)->compute_s, 0)
      << "the chain swept more than the keys: nothing left to add";
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::nohostsync), 100, {.kernels = 4}, dependent)->compute_s, 4 * 400.0 / 1000)
      << "stream launches are priced as empty kernels: their sweeps are added";

  const auto zero_copy = model_rung(plan(Rung::zerocopy), 100, {.kernels = 4}, p);
  ASSERT_TRUE(zero_copy);
  EXPECT_DOUBLE_EQ(zero_copy->copies_s, 0.25 + 400.0 / 20 + 400.0 / 40) << "the kernels read and write the host's keys";
  EXPECT_DOUBLE_EQ(zero_copy->dispatch_s, fused->dispatch_s);
  EXPECT_NE(zero_copy->basis.find("over the link by the kernels"), std::string::npos) << zero_copy->basis;

  model::DeviceProfile no_barrier = p;
  no_barrier.grid_barrier_s = 0;
  EXPECT_FALSE(model_rung(plan(Rung::persistent), 100, {.kernels = 1, .barriers = 3}, no_barrier))
      << "no barrier figure (a profile saved before link measured one), no model";
  const auto persistent = model_rung(plan(Rung::persistent), 100, {.kernels = 1, .barriers = 3}, p);
  ASSERT_TRUE(persistent);
  EXPECT_DOUBLE_EQ(persistent->dispatch_s, 10 + 3 * 0.5);
  EXPECT_DOUBLE_EQ(persistent->compute_s, 4 * 400.0 / 1000) << "four stretches between the barriers";
  EXPECT_NE(persistent->basis.find("3 grid barriers"), std::string::npos) << persistent->basis;

  no_barrier.cluster_barrier_s = 0;
  EXPECT_FALSE(model_rung(plan(Rung::cluster), 100, {.kernels = 1, .barriers = 3}, no_barrier))
      << "no cluster barrier figure (a profile saved before link measured one), no model";
  const auto cluster = model_rung(plan(Rung::cluster), 100, {.kernels = 1, .barriers = 3}, p);
  ASSERT_TRUE(cluster);
  EXPECT_DOUBLE_EQ(cluster->dispatch_s, 2 + 3 + 3 * 0.25) << "one graph node, the sync, the cluster barriers";
  EXPECT_DOUBLE_EQ(cluster->copies_s, zero_copy->copies_s);
  EXPECT_DOUBLE_EQ(cluster->compute_s, 0) << "the keys never sweep device memory";
  EXPECT_NE(cluster->basis.find("3 cluster barriers"), std::string::npos) << cluster->basis;

  const auto resident = model_rung(plan(Rung::resident), 100, {.kernels = 0, .barriers = 4}, p);
  ASSERT_TRUE(resident);
  EXPECT_DOUBLE_EQ(resident->dispatch_s, 1.5 + 4 * 0.25) << "a doorbell's round trip and the barriers, no launch";
  EXPECT_DOUBLE_EQ(resident->copies_s, zero_copy->copies_s);
  EXPECT_DOUBLE_EQ(resident->compute_s, 0);
  p.flag_round_trip_s = 0;
  EXPECT_FALSE(model_rung(plan(Rung::resident), 100, {.kernels = 0, .barriers = 4}, p)) << "no flag figure, no model";
}

// Every figure a different size, so that each term of a rung's model moves its prediction: 256 keys are
// 1024 bytes, which cross each link at a rate of its own and sweep device memory in 0.25 s.
model::DeviceProfile distinct_profile() {
  model::DeviceProfile p;
  p.h2d_Bps = 512;           // 2 s for the keys
  p.d2h_Bps = 256;           // 4 s
  p.pageable_h2d_Bps = 128;  // 8 s
  p.pageable_d2h_Bps = 64;   // 16 s
  p.copy_engine_latency_h2d_s = 0.5;
  p.copy_engine_latency_d2h_s = 0.75;
  p.zero_copy_read_Bps = 32;   // 32 s
  p.zero_copy_write_Bps = 16;  // 64 s
  p.mapped_read_latency_s = 0.125;
  p.launch_and_sync_s = 10;
  p.launch_per_kernel_s = 3;
  p.graph_per_kernel_s = 1.5;
  p.programmatic_graph_per_kernel_s = 1.25;
  p.dependent_graph_per_kernel_s = 2.5;
  p.dependent_programmatic_graph_per_kernel_s = 1.75;
  p.dependent_kernel_bytes = 256;  // a chain node's figure holds 256 of each kernel's 1024 bytes
  p.sync_wakeup_s = 7;
  p.grid_barrier_s = 0.375;
  p.cluster_barrier_s = 0.3125;
  p.flag_round_trip_s = 5.5;
  p.device_copy_Bps = 4096;
  return p;
}

double modelled_seconds(Rung rung, Dispatches dispatches) {
  const auto m = model_rung(plan(rung), 256, dispatches, distinct_profile());
  EXPECT_TRUE(m) << plan(rung).name;
  return m ? m->seconds() : 0;
}

// Each expectation is docs/dispatch.md's model = dispatch + copies + sweeps, written out term by term.
TEST(DispatchModel, EachRungIsItsDispatchPlusItsCopiesPlusItsSweepsWithEveryTermCounted) {
  const double B = 1024;
  const double pageable_copies = (0.5 + B / 128) + (0.75 + B / 64);
  const double pinned_copies = (0.5 + B / 512) + (0.75 + B / 256);
  const double zero_copy = 0.125 + B / 32 + B / 16;
  const double sweep = B / 4096, beyond_the_chain = (B - 256) / 4096;
  const Dispatches six{.kernels = 6};

  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::baseline, six), 6 * 10 + pageable_copies + 6 * sweep);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::prealloc, six), 6 * 10 + pageable_copies + 6 * sweep);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::nohostsync, six), (6 * 3 + 7) + pageable_copies + 6 * sweep);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::graph, six), (6 * 2.5 + 7) + pageable_copies + 6 * beyond_the_chain);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::pinned, six), (6 * 2.5 + 7) + pinned_copies + 6 * beyond_the_chain);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::pdl, six), (6 * 1.75 + 7) + pinned_copies + 6 * beyond_the_chain);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::fused, {.kernels = 4}),
                   (4 * 1.75 + 7) + pinned_copies + 4 * beyond_the_chain);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::persistent, {.kernels = 1, .barriers = 3}),
                   (10 + 3 * 0.375) + pinned_copies + (1 + 3) * sweep);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::onchip, {.kernels = 1}), 10 + pinned_copies + sweep);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::zerocopy, {.kernels = 4}), (4 * 1.75 + 7) + zero_copy + 4 * beyond_the_chain);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::cluster, {.kernels = 1, .barriers = 3}),
                   (1.5 + 7 + 3 * 0.3125) + zero_copy + 0);
  EXPECT_DOUBLE_EQ(modelled_seconds(Rung::resident, {.kernels = 0, .barriers = 4}), (5.5 + 4 * 0.3125) + zero_copy);
}

TEST(DispatchModel, AProfileWithoutTheChainsFiguresPricesEmptyNodesAndTheirWholeSweeps) {
  model::DeviceProfile p = distinct_profile();
  p.dependent_graph_per_kernel_s = p.dependent_programmatic_graph_per_kernel_s = p.dependent_kernel_bytes = 0;
  const double pinned_copies = (0.5 + 1024.0 / 512) + (0.75 + 1024.0 / 256);
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::pinned), 256, {.kernels = 6}, p)->seconds(),
                   (6 * 1.5 + 7) + pinned_copies + 6 * 1024.0 / 4096);
  EXPECT_DOUBLE_EQ(model_rung(plan(Rung::pdl), 256, {.kernels = 6}, p)->seconds(),
                   (6 * 1.25 + 7) + pinned_copies + 6 * 1024.0 / 4096);
}

TEST(SortBench, TheFusedRungsSortAndCountTheirDispatches) {
  auto backend = make_backend("emu");
  SortBench bench(*backend, 0, 4096, 256, 2);
  EXPECT_EQ(bench.fused_steps(), fused_steps(4096, 256).size());
  EXPECT_EQ(bench.dispatches(Rung::pdl).kernels, bench.passes());
  EXPECT_EQ(bench.dispatches(Rung::fused).kernels, bench.fused_steps());
  EXPECT_EQ(bench.dispatches(Rung::persistent).kernels, 1u);
  EXPECT_EQ(bench.dispatches(Rung::persistent).barriers, bench.fused_steps() - 1);
  EXPECT_EQ(bench.dispatches(Rung::onchip).barriers, 0u);
  EXPECT_EQ(bench.dispatches(Rung::zerocopy).kernels, bench.fused_steps());
  EXPECT_EQ(bench.dispatches(Rung::cluster).kernels, 1u);
  EXPECT_EQ(bench.dispatches(Rung::cluster).barriers, bench.fused_steps() - 1)
      << "a cluster barrier where a step ended";
  EXPECT_EQ(bench.dispatches(Rung::resident).kernels, 0u) << "launched once, before the sorts";
  EXPECT_EQ(bench.dispatches(Rung::resident).barriers, bench.fused_steps()) << "and one more to start each sort";
  // The emulator has no programmatic launch, so a dispatch run skips +fused; its graph still sorts here.
  for (Rung rung : {Rung::fused, Rung::persistent, Rung::zerocopy, Rung::cluster, Rung::resident}) {
    const Measurement m = bench.rung(rung);
    EXPECT_EQ(m.check, Check::passed) << plan(rung).name;
    EXPECT_EQ(m.seconds.size(), 2u);
  }
}

// Copies into the device's keys that land only the first time: each timed sample then sorts the poison
// the keys start as, and hands back an output that is sorted but holds none of the input's keys.
TEST(SortBench, AnOutputThatIsSortedButNotTheInputsKeysFails) {
  constexpr std::uint64_t keys = 4096;
  CopiesLandOnce backend(
      [](MemoryKind kind, std::size_t bytes) { return kind == MemoryKind::device && bytes == keys * 4; });
  SortBench bench(backend, 0, keys, 256, 2);
  for (Rung rung : {Rung::baseline, Rung::nohostsync, Rung::graph, Rung::pinned, Rung::fused, Rung::persistent})
    EXPECT_EQ(bench.rung(rung).check, Check::failed) << plan(rung).name << ": sorted poison is not the input sorted";
  EXPECT_EQ(bench.rung(Rung::zerocopy).check, Check::passed) << "no copies: the sort reads the keys itself";
}

// Counts the kernels the emulator runs (each replay of a graph runs its captured ones again) and the
// stream copies it is handed outside a capture.
class CountsSortWork final : public HookedEmu {
 public:
  std::atomic<std::size_t> kernels_run{0}, copies{0};

  bool copy_lands(const void*) override {
    ++copies;
    return true;
  }
  std::function<void()> kernel(std::function<void()> work) override {
    return [this, work = std::move(work)] {
      ++kernels_run;
      work();
    };
  }
};

// docs/dispatch.md: a rung's median is of --iterations sorts after 3 warm-up sorts, so that neither a
// graph's first replay nor a kernel's first launch is its cost. Every rung whose kernels are launched for
// each sort runs them 3 + 2 times here and times the last 2; a rung with copies moves its keys in and out
// as often, and the copies alone run as many times. (+resident's one kernel serves every sort.)
TEST(SortBench, EachRungAndTheCopiesRunThreeWarmUpSortsBeforeTheirTimedOnes) {
  CountsSortWork backend;
  constexpr int iterations = 2;
  constexpr std::size_t warm_up = 3, runs = warm_up + iterations;
  SortBench bench(backend, 0, 1024, 64, iterations);
  for (MemoryKind host : {MemoryKind::pageable, MemoryKind::pinned}) {
    backend.copies = 0;
    const Measurement m = bench.copies(host);
    EXPECT_EQ(m.seconds.size(), static_cast<std::size_t>(iterations));
    EXPECT_EQ(backend.copies.load(), 2 * runs) << to_string(host) << " copies alone: in and out, each run";
  }
  for (Rung rung : {Rung::baseline, Rung::prealloc, Rung::nohostsync, Rung::graph, Rung::pinned, Rung::pdl, Rung::fused,
                    Rung::persistent, Rung::onchip, Rung::zerocopy, Rung::cluster}) {
    backend.kernels_run = backend.copies = 0;
    const Measurement m = bench.rung(rung);
    EXPECT_EQ(m.check, Check::passed) << plan(rung).name;
    EXPECT_EQ(m.seconds.size(), static_cast<std::size_t>(iterations)) << plan(rung).name;
    EXPECT_EQ(backend.kernels_run.load(), runs * bench.dispatches(rung).kernels) << plan(rung).name;
    EXPECT_EQ(backend.copies.load(), plan(rung).zero_copy ? 0 : 2 * runs) << plan(rung).name;
  }
}

// Every copy takes at least 500 us more than the emulator's: each key count's copies alone take 1 ms
// and more, so each copying rung's cost per pass stands well apart from its median over its passes.
class CopiesTakeAtLeastHalfAMillisecond final : public HookedEmu {
 public:
  // Called as the copy is enqueued, inside the host's timed span.
  bool copy_lands(const void*) override {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    return true;
  }
};

// docs/dispatch.md: per pass us = (the rung's median - the copies alone through the same memory) / passes;
// a rung without copies: its median / passes. Read off one run's rows, to the printed hundredth of a us.
TEST(Dispatch, EachRungsCostPerPassIsItsMedianLessItsCopiesOverThePasses) {
  CopiesTakeAtLeastHalfAMillisecond backend;
  DispatchConfig config;
  config.keys = {64, 256};
  config.tile = 16;
  config.iterations = 2;
  const WorkloadResult result = run(backend, config, profile(), Progress("dispatch", false));
  ASSERT_TRUE(result.passed());
  std::map<std::pair<std::string, std::string>, double> copies_s;  // by key count and host memory
  for (const Row& row : result.rows)
    if (row.section == "copies") copies_s[{text_of(row, "keys"), text_of(row, "host")}] = row.value();
  ASSERT_EQ(copies_s.size(), 2u * 2);
  std::size_t copying = 0, copy_free = 0;
  for (const Row& row : result.rows) {
    if (row.section != "ladder") continue;
    const std::string rung = text_of(row, "rung");
    const auto passes = static_cast<double>(pass_count(std::get<std::int64_t>(param(row, "keys"))));
    double sort_s = row.value();
    if (plan(parse_rung(rung)).zero_copy) {
      ++copy_free;
    } else {
      ++copying;
      sort_s -= copies_s.at({text_of(row, "keys"), text_of(row, "host")});
    }
    const std::string per_pass = text_of(row, "per pass us");
    const std::string at = rung + " at " + text_of(row, "keys") + " keys: " + per_pass;
    if (sort_s < 0) {
      EXPECT_EQ(per_pass, "-") << at << ": the copies alone took longer than the whole rung";
      continue;
    }
    ASSERT_NE(per_pass, "-") << at;
    EXPECT_NEAR(std::stod(per_pass), to_us(sort_s / passes), 0.005 + 1e-9) << at;
  }
  EXPECT_EQ(copying, 2u * 7) << "baseline to +onchip but +pdl and +fused, at each key count";
  EXPECT_EQ(copy_free, 2u * 2) << "+cluster and +resident";
}

TEST(Dispatch, EveryRungTheEmulatorCanRunPasses) {
  auto backend = make_backend("emu");
  DispatchConfig config;
  config.keys = {1024, 4096};
  config.iterations = 3;
  Progress progress("dispatch", false);
  progress.keep_steps();
  const WorkloadResult result = run(*backend, config, profile(), progress);
  EXPECT_TRUE(result.passed());
  EXPECT_EQ(progress.steps_taken(), progress.steps_expected()) << "the terminal line's count must end at its total";
  const Plan plan = plan_run(config, backend->capabilities(), backend->device_features(config.device));
  EXPECT_EQ(progress.kept_steps(), texts(plan)) << "--dry-run lists the steps the run takes";
  EXPECT_EQ(plan.skipped, result.skipped) << "and the rungs it leaves out";
  std::size_t ladder_rows = 0;
  for (const Row& row : result.rows)
    if (row.section == "ladder") {
      ++ladder_rows;
      EXPECT_EQ(row.check, Check::passed);
      EXPECT_EQ(row.sample_count(), 3u);
      EXPECT_TRUE(row.model.has_value());
    }
  EXPECT_EQ(ladder_rows, 2u * 9u) << "every rung but +pdl, +fused and +zerocopy, at each key count";
  ASSERT_EQ(result.skipped.size(), 6u);
  EXPECT_NE(result.skipped[0].find("+pdl"), std::string::npos);
  EXPECT_NE(result.skipped[1].find("+fused"), std::string::npos);
  EXPECT_NE(result.skipped[2].find("+zerocopy"), std::string::npos);
}

TEST(Dispatch, BadConfigurationsAreRefused) {
  auto backend = make_backend("emu");
  DispatchConfig config;
  config.keys = {1000};
  EXPECT_THROW(validate(*backend, config), UsageError);
  config.keys = {1};
  EXPECT_THROW(validate(*backend, config), UsageError);
  config.keys = {1024};
  config.rungs.clear();
  EXPECT_THROW(validate(*backend, config), UsageError);
}

// The name FERRY_FAULT_CORRUPT_OUTPUT gives a measured row, read off the table; empty for a summary.
std::string hook_name(const Row& row) {
  if (row.section == "copies") return text_of(row, "host") + "-copies";
  if (row.section == "ladder") return text_of(row, "rung");
  return "";
}

TEST(Dispatch, ACorruptedFirstSampleFailsItsRowAloneAndTheRun) {
  auto backend = make_backend("emu");
  DispatchConfig config;
  config.keys = {64, 128};
  config.tile = 16;
  config.iterations = 2;
  const std::vector<std::string> rows = row_names(config, backend->capabilities(), backend->device_features(0));
  EXPECT_EQ(rows.size(), 2u + 9u) << "both copies, and every rung but +pdl, +fused and +zerocopy";
  for (const std::string& corrupted : rows) {
    config.corrupt_row = corrupted;
    const WorkloadResult r = run(*backend, config, profile(), Progress("dispatch", false));
    EXPECT_FALSE(r.passed()) << corrupted;
    std::size_t failed = 0;
    for (const Row& row : r.rows) {
      if (row.section == "summary") continue;  // a copy of the best rung's row, its check included
      // One sample of the run: the row's first, at the first key count.
      const bool hit = hook_name(row) == corrupted && text_of(row, "keys") == "64";
      EXPECT_EQ(row.check, hit ? Check::failed : Check::passed)
          << corrupted << " corrupted; row " << hook_name(row) << " at " << text_of(row, "keys") << " keys";
      failed += row.check == Check::failed ? 1 : 0;
    }
    EXPECT_EQ(failed, 1u) << corrupted;
  }
}

TEST(Dispatch, TheCorruptionHookRefusesARowTheRunDoesNotMeasure) {
  EXPECT_EQ(parse_row_name("graph"), "+graph") << "as --rungs spells it";
  EXPECT_EQ(parse_row_name("baseline"), "baseline");
  EXPECT_EQ(parse_row_name("pinned-copies"), "pinned-copies");
  for (const char* nothing : {"copies", "mapped-copies", "+graphs", ""}) {
    try {
      parse_row_name(nothing);
      ADD_FAILURE() << "'" << nothing << "' was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(corrupt_output_variable) + "='" + nothing + "'"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("pageable-copies or pinned-copies"), std::string::npos) << e.what();
    }
  }
  auto backend = make_backend("emu");
  DispatchConfig config;
  config.keys = {64};
  config.tile = 16;
  config.rungs = {Rung::baseline, Rung::pinned, Rung::pdl};
  // +pdl is skipped on the emulator, +graph not asked for, and no rung here copies through mapped memory.
  for (const char* not_measured : {"+pdl", "+graph", "+resident"}) {
    config.corrupt_row = not_measured;
    try {
      validate(*backend, config);
      ADD_FAILURE() << not_measured << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(corrupt_output_variable) + "='" + not_measured + "'"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("pageable-copies, pinned-copies, baseline, +pinned"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Dispatch, TheCommandExitsOneOnACorruptedRowAndTwoOnARowItDoesNotMeasure) {
  const std::vector<std::string> args = {
      "run", "dispatch", "--backend", "emu",          "--quick", "-q",      "--keys",
      "64",  "--tile",   "16",        "--iterations", "2",       "--rungs", "baseline,+graph"};
  ::setenv(corrupt_output_variable, "graph", 1);
  const Outcome corrupted = ferry(args);
  ::setenv(corrupt_output_variable, "+onchip", 1);
  const Outcome refused = ferry(args);
  ::unsetenv(corrupt_output_variable);
  EXPECT_EQ(corrupted.code, 1) << corrupted.err;
  EXPECT_NE(corrupted.out.find("dispatch: FAILED"), std::string::npos) << corrupted.out;
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("FERRY_FAULT_CORRUPT_OUTPUT='+onchip'"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out.find("dispatch: "), std::string::npos) << "refused before anything ran";
}

}  // namespace
}  // namespace ferry::dispatch
