// Every timed copy of link lands in a destination poisoned before the sample, so that a copy which does
// nothing cannot pass on what an earlier sample left there. These tests run link on the emulator behind a
// backend whose copies land only the first time they reach a destination: each row that times such copies
// must then FAIL, which it does only if its destination was poisoned before every sample.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "bench/hooked_emu.hpp"
#include "bench/link/link.hpp"
#include "bench/row_params.hpp"

namespace ferry::link_poison_test {
namespace {

std::vector<const Row*> rows_of(const link::LinkOutcome& out, const std::string& section) {
  std::vector<const Row*> rows;
  for (const Row& r : out.result.rows)
    if (r.section == section) rows.push_back(&r);
  return rows;
}

// Sizes no other buffer of these runs has, so that the rule reaches the timed copies' buffers alone.
constexpr std::size_t sweep_small = 3000, sweep_large = 40000, latency_small = 5, latency_large = 1000;
constexpr std::size_t queued_copy = 2000, queued_batch = 4 * queued_copy, device_copy = 70000;

TEST(LinkPoison, EveryCopyRowOnOneDeviceFailsWhenItsCopiesLandOnlyTheFirstTime) {
  CopiesLandOnce backend([](MemoryKind, std::size_t bytes) {
    return std::set<std::size_t>{sweep_small, sweep_large, latency_small, latency_large, queued_batch, device_copy}
        .contains(bytes);
  });
  link::LinkConfig config = link::LinkConfig::defaults(backend.capabilities(), true);
  config.sweep_bytes = {sweep_small, sweep_large};
  config.latency_bytes = {latency_small, latency_large};
  config.queued_copy_bytes = {queued_copy};
  config.queued_batch_bytes = queued_batch;  // 4 copies of 2000 B a batch, into one buffer
  config.device_copy_bytes = device_copy;
  config.loaded_teams = {};
  config.flag_round_trips = 500;
  const link::LinkOutcome out = link::run(backend, backend.describe_machine(), config, Progress("link", false));

  // The warm-up's copies land and every timed sample's do not: only the poison before each sample
  // leaves the check something other than the warm-up's bytes to find.
  const std::vector<const Row*> latency = rows_of(out, "copy_latency");
  const std::vector<const Row*> bandwidth = rows_of(out, "bandwidth");
  const std::vector<const Row*> queued = rows_of(out, "copy_queue");
  const std::vector<const Row*> device = rows_of(out, "device_copy");
  EXPECT_EQ(latency.size(), 2u * 2 * 2) << "two clocks, two directions, two sizes";
  EXPECT_EQ(bandwidth.size(), 3u * 3 * 2) << "three memory kinds, h2d, d2h and both, two sizes";
  EXPECT_EQ(queued.size(), 3u);
  EXPECT_EQ(device.size(), 1u);
  for (const auto* rows : {&latency, &bandwidth, &queued, &device})
    for (const Row* r : *rows)
      EXPECT_EQ(r->check, Check::failed) << r->section << " " << text_of(*r, "memory") << " "
                                         << text_of(*r, "direction") << " " << text_of(*r, "clock");
  for (const Row* r : rows_of(out, "ceiling"))
    if (text_of(*r, "path") == "copy engine") EXPECT_EQ(r->check, Check::failed) << "taken from a failed row";

  // Kernels move the zero-copy rows' bytes, and the chains' answers come back through buffers the rule
  // leaves alone: those rows still pass, so the failures above are the timed copies'.
  ASSERT_FALSE(rows_of(out, "zero_copy").empty());
  for (const std::string section : {"zero_copy", "flag"})
    for (const Row* r : rows_of(out, section)) EXPECT_EQ(r->check, Check::passed) << section;
}

TEST(LinkPoison, EveryPeerCopyRowFailsWhenItsCopiesLandOnlyTheFirstTime) {
  constexpr std::size_t peer_copy = 90000;  // one size for every peer copy: no 2 MiB one below it
  // The peer latency's 8-byte copies land in device memory; the checker's counts come back into host memory.
  CopiesLandOnce backend([](MemoryKind kind, std::size_t bytes) {
    return bytes == peer_copy || (bytes == 8 && kind == MemoryKind::device);
  });
  link::LinkConfig config = link::LinkConfig::for_peers(backend.capabilities(), {0, 1});
  config.peer_bytes = peer_copy;
  const link::LinkOutcome out = link::run(backend, backend.describe_machine(), config, Progress("link", false));

  const std::vector<const Row*> one_way = rows_of(out, "peer_bandwidth");
  const std::vector<const Row*> latency = rows_of(out, "peer_latency");
  const std::vector<const Row*> both_ways = rows_of(out, "peer_bidirectional");
  EXPECT_EQ(one_way.size(), 2u) << "0 -> 1 and 1 -> 0";
  EXPECT_EQ(latency.size(), 4u) << "each way, host and device clock";
  EXPECT_EQ(both_ways.size(), 1u);
  for (const auto* rows : {&one_way, &latency, &both_ways})
    for (const Row* r : *rows) EXPECT_EQ(r->check, Check::failed) << r->section << " " << text_of(*r, "clock");

  ASSERT_FALSE(rows_of(out, "peer_sm").empty());
  for (const Row* r : rows_of(out, "peer_sm")) EXPECT_EQ(r->check, Check::passed) << "kernels move these bytes";
}

}  // namespace
}  // namespace ferry::link_poison_test
