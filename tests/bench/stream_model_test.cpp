#include "bench/stream/stream_model.hpp"

#include <gtest/gtest.h>

namespace ferry::stream {
namespace {

Ceilings ceilings() {
  Ceilings c;
  c.link.h2d_Bps = 50e9;
  c.link.d2h_Bps = 50e9;
  c.link.bidirectional_Bps = 80e9;
  c.link.zero_copy_read_Bps = 45e9;
  c.link.zero_copy_write_Bps = 40e9;
  c.link.copy_engine_latency_h2d_s = 2e-6;
  c.link.copy_engine_latency_d2h_s = 2e-6;
  c.link.launch_and_sync_s = 10e-6;
  c.link.launch_per_kernel_s = 4e-6;
  c.link.flag_round_trip_s = 3e-6;
  c.fused_compute_Bps = 1000e9;
  c.stage_compute_Bps = 1200e9;
  return c;
}

StreamConfig config() {
  StreamConfig c;
  c.total_bytes = 1ull << 30;
  c.stages = 3;
  return c;
}

TEST(StreamModel, OffloadIsEverythingInThenComputeThenEverythingOut) {
  const double total = 1ull << 30;
  const Prediction p = predict({Design::offload, 1ull << 30, 1}, config(), ceilings());
  EXPECT_DOUBLE_EQ(p.latency_s, 10e-6 + 2e-6 + 2e-6 + total / 50e9 + total / 1000e9 + total / 50e9);
  EXPECT_DOUBLE_EQ(p.throughput_Bps, total / p.latency_s) << "one chunk in flight: Little's law is the serial time";
}

TEST(StreamModel, LargeChunksAreBoundByPcieBothWaysAtOnce) {
  const Prediction p = predict({Design::chunked, 64ull << 20, 4}, config(), ceilings());
  EXPECT_DOUBLE_EQ(p.throughput_Bps, 40e9);
  EXPECT_EQ(p.throughput_basis, "PCIe both ways (bidir/2)");
}

TEST(StreamModel, SmallChunksAreBoundByTheHostsCallsPerChunk) {
  const Prediction chunked = predict({Design::chunked, 64 << 10, 8}, config(), ceilings());
  EXPECT_DOUBLE_EQ(chunked.throughput_Bps, (64 << 10) / (3 * 4e-6));
  const Prediction pipeline = predict({Design::pipeline, 64 << 10, 8}, config(), ceilings());
  EXPECT_DOUBLE_EQ(pipeline.throughput_Bps, (64 << 10) / (5 * 4e-6)) << "copy in, 3 kernels, copy out";
}

TEST(StreamModel, ThePersistentDesignPaysAFlagRoundTripNotALaunch) {
  const double chunk = 4096;
  const Prediction p = predict({Design::persistent, 4096, 1}, config(), ceilings());
  EXPECT_DOUBLE_EQ(p.latency_s, 3e-6 + chunk / 40e9)
      << "read, stages and write overlap: the slowest rate, write, binds";
  EXPECT_DOUBLE_EQ(p.throughput_Bps, chunk / p.latency_s) << "depth 1: one chunk at a time";
}

TEST(StreamModel, PipelineLatencyGrowsWithItsStages) {
  StreamConfig more = config();
  more.stages = 6;
  const Prediction three = predict({Design::pipeline, 4096, 1}, config(), ceilings());
  const Prediction six = predict({Design::pipeline, 4096, 1}, more, ceilings());
  EXPECT_DOUBLE_EQ(six.latency_s - three.latency_s, 3 * 4e-6 + 3 * 4096 / 1200e9) << "three more launches and kernels";
}

TEST(StreamModel, WithChunksInFlightLatencyIsBoundByLittlesLaw) {
  // 1 MiB at depth 4 through PCIe both ways at 40 GB/s: each chunk waits behind three others.
  const double chunk = 1 << 20;
  const Prediction p = predict({Design::chunked, 1 << 20, 4}, config(), ceilings());
  EXPECT_DOUBLE_EQ(p.ceiling_Bps, 40e9);
  EXPECT_DOUBLE_EQ(p.latency_s, 4 * chunk / 40e9);
  EXPECT_GT(p.latency_s, p.path_s);
  EXPECT_EQ(p.latency_basis, "depth 4 x chunk / PCIe both ways (bidir/2)");
  const Prediction alone = predict({Design::chunked, 1 << 20, 1}, config(), ceilings());
  EXPECT_DOUBLE_EQ(alone.latency_s, alone.path_s) << "depth 1: nothing to wait behind";
  EXPECT_DOUBLE_EQ(alone.latency_s, p.path_s);
}

TEST(StreamModel, CopyEngineDesignsReadTheQueuedCopiesAtTheirChunkSize) {
  Ceilings c = ceilings();
  // A pair of 64 KiB copies (one each way) every 4 us; 1 MiB pairs every 40 us.
  c.link.queued_both_ways = {{64 << 10, 4e-6}, {1 << 20, 40e-6}};
  const Prediction small = predict({Design::graph, 64 << 10, 8}, config(), c);
  EXPECT_DOUBLE_EQ(small.ceiling_Bps, (64 << 10) / 4e-6);
  EXPECT_EQ(small.ceiling_basis, "copies queued both ways at once, at this size");
  const Prediction between = predict({Design::graph, 256 << 10, 8}, config(), c);
  EXPECT_DOUBLE_EQ(between.ceiling_Bps, (256 << 10) / (4e-6 + 36e-6 * (192.0 / 960.0))) << "linear between the sizes";
}

TEST(StreamModel, TheGraphDesignPaysOneHostCallPerChunk) {
  const Prediction graph = predict({Design::graph, 16 << 10, 8}, config(), ceilings());
  EXPECT_DOUBLE_EQ(graph.ceiling_Bps, (16 << 10) / 4e-6);
  EXPECT_EQ(graph.ceiling_basis, "host: a graph launch per chunk");
}

TEST(StreamModel, AGraphChunksFixedCostIsLinksGraphRoundTripWhenTheProfileHasIt) {
  const double chunk = 256 << 10;
  Ceilings c = ceilings();
  c.link.graph_per_kernel_s = 1e-6;
  const Prediction older = predict({Design::graph, 256 << 10, 1}, config(), c);
  EXPECT_DOUBLE_EQ(older.path_s, 4e-6 + 2 * 1e-6 + 2e-6 + 2e-6 + chunk / 50e9 + chunk / 50e9 + chunk / 1000e9)
      << "without link's graph round trip: a launch, two nodes replayed and the copies' latencies";
  c.link.graph_chunk_round_trip_s = 20e-6;
  const Prediction measured = predict({Design::graph, 256 << 10, 1}, config(), c);
  EXPECT_DOUBLE_EQ(measured.path_s, 20e-6 + chunk / 50e9 + chunk / 50e9 + chunk / 1000e9)
      << "the round trip already holds the copies' fixed costs";
  EXPECT_EQ(measured.latency_basis, "graph launch -> flag seen (link), chunk copied in, computed, copied out");
  EXPECT_DOUBLE_EQ(measured.ceiling_Bps, older.ceiling_Bps)
      << "the host's launch per chunk still bounds the throughput";
}

TEST(StreamModel, FusedAndPoolPayAFlagRoundTripAndOneMappedReadAndStreamAtTheZeroCopyRate) {
  Ceilings c = ceilings();
  c.link.mapped_read_latency_s = 1e-6;
  c.link.zero_copy_both_Bps = 30e9;
  for (Design d : {Design::fused, Design::pool}) {
    const Prediction p = predict({d, 256 << 10, 1}, config(), c);
    EXPECT_DOUBLE_EQ(p.latency_s, 3e-6 + 1e-6 + (256 << 10) / 30e9) << to_string(d);
    EXPECT_EQ(p.ceiling_basis, "zero-copy read while writing");
    const Prediction deep = predict({d, 256 << 10, 4}, config(), c);
    EXPECT_DOUBLE_EQ(deep.throughput_Bps, 30e9) << "no host calls: only the link binds";
  }
}

TEST(StreamModel, WithinALatencyTheLinkAllowsTheMostThroughputWhoseWaitsFit) {
  model::DeviceProfile link;
  link.zero_copy_under_load = {{4, 31e9, 4e-6}, {16, 40e9, 12e-6}, {64, 41e9, 30e-6}};
  link.queued_both_ways = {{256 << 10, 10e-6}, {1 << 20, 30e-6}};
  const LatencyCeiling sm40 = sm_ceiling_within(link, 40e-6);
  EXPECT_DOUBLE_EQ(sm40.Bps, 40e9) << "16 teams: 3 x 12 us fits in 40; 64 teams' 3 x 30 us does not";
  EXPECT_NE(sm40.basis.find("16 teams"), std::string::npos);
  EXPECT_DOUBLE_EQ(sm_ceiling_within(link, 20e-6).Bps, 31e9);
  EXPECT_DOUBLE_EQ(sm_ceiling_within(link, 5e-6).Bps, 0) << "nothing fits: no ceiling";
  EXPECT_DOUBLE_EQ(engine_ceiling_within(link, 60e-6).Bps, (1 << 20) / 30e-6) << "in then out: 60 us";
  EXPECT_DOUBLE_EQ(engine_ceiling_within(link, 40e-6).Bps, (256 << 10) / 10e-6);
}

// Every figure a different size, so that each term of a path or a ceiling moves the prediction: a copy
// engine's rate and fixed cost differ by direction, the link both ways at once (bidir/2, 35 GB/s) is
// below either, zero-copy writes are slower than reads, and a mapped read costs something.
Ceilings distinct_ceilings() {
  Ceilings c;
  c.link.h2d_Bps = 50e9;
  c.link.d2h_Bps = 40e9;
  c.link.bidirectional_Bps = 70e9;
  c.link.zero_copy_read_Bps = 45e9;
  c.link.zero_copy_write_Bps = 30e9;
  c.link.copy_engine_latency_h2d_s = 2e-6;
  c.link.copy_engine_latency_d2h_s = 3e-6;
  c.link.launch_and_sync_s = 11e-6;
  c.link.launch_per_kernel_s = 4e-6;
  c.link.graph_per_kernel_s = 1.25e-6;
  c.link.flag_round_trip_s = 5e-6;
  c.link.mapped_read_latency_s = 1.5e-6;
  c.fused_compute_Bps = 1000e9;
  c.stage_compute_Bps = 1200e9;
  return c;
}

// Within a part in 10^12: rounding, far below a term scaled by 1.1 or dropped.
void expect_model_seconds(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-12 * expected) << "expected " << expected;
}

constexpr double mib = 1 << 20;

TEST(StreamModel, ACopyEngineChunksPathIsItsLaunchBothCopiesFixedCostsAndItsBytesThroughEachStep) {
  for (Design d : {Design::offload, Design::chunked}) {
    const Prediction p = predict({d, 1 << 20, 1}, config(), distinct_ceilings());
    expect_model_seconds(p.path_s, 11e-6 + (2e-6 + mib / 50e9) + (3e-6 + mib / 40e9) + mib / 1000e9);
    EXPECT_DOUBLE_EQ(p.latency_s, p.path_s) << to_string(d) << ": one chunk in flight waits for nothing";
  }
}

TEST(StreamModel, APipelineChunkPaysALaunchPerMoreStageAndEachStageAtOneStagesRate) {
  const Prediction p = predict({Design::pipeline, 1 << 20, 1}, config(), distinct_ceilings());
  expect_model_seconds(p.path_s, 11e-6 + 2 * 4e-6 + (2e-6 + mib / 50e9) + (3e-6 + mib / 40e9) + 3 * mib / 1200e9);
}

TEST(StreamModel, AGraphChunksPathIsLinksRoundTripAndItsBytesElseALaunchTwoNodesAndTheCopies) {
  Ceilings c = distinct_ceilings();
  const Prediction older = predict({Design::graph, 1 << 20, 1}, config(), c);
  expect_model_seconds(older.path_s, 4e-6 + 2 * 1.25e-6 + (2e-6 + mib / 50e9) + (3e-6 + mib / 40e9) + mib / 1000e9);
  c.link.graph_chunk_round_trip_s = 20e-6;
  const Prediction measured = predict({Design::graph, 1 << 20, 1}, config(), c);
  expect_model_seconds(measured.path_s, 20e-6 + mib / 50e9 + mib / 40e9 + mib / 1000e9);
}

TEST(StreamModel, AZeroCopyChunkPaysALaunchAndAMappedReadThenStreamsAtTheSlowerOfLinkAndCompute) {
  Ceilings c = distinct_ceilings();
  // Without a read-while-write figure, the link both ways is the least of reads, writes and bidir/2: writes.
  const Prediction link_bound = predict({Design::zerocopy, 1 << 20, 1}, config(), c);
  expect_model_seconds(link_bound.path_s, 11e-6 + 1.5e-6 + mib / 30e9);
  EXPECT_EQ(link_bound.ceiling_basis, "zero-copy read, write or bidir/2");
  c.link.zero_copy_both_Bps = 25e9;
  expect_model_seconds(predict({Design::zerocopy, 1 << 20, 1}, config(), c).path_s, 11e-6 + 1.5e-6 + mib / 25e9);
  c.fused_compute_Bps = 20e9;  // compute slower than the link: compute binds
  expect_model_seconds(predict({Design::zerocopy, 1 << 20, 1}, config(), c).path_s, 11e-6 + 1.5e-6 + mib / 20e9);
}

TEST(StreamModel, ADoorbellChunkPaysAFlagRoundTripAndAMappedReadThenStreamsAtTheSlowerOfLinkAndCompute) {
  Ceilings c = distinct_ceilings();
  c.link.zero_copy_both_Bps = 25e9;
  for (Design d : {Design::fused, Design::pool})
    expect_model_seconds(predict({d, 1 << 20, 1}, config(), c).path_s, 5e-6 + 1.5e-6 + mib / 25e9);
  expect_model_seconds(predict({Design::persistent, 1 << 20, 1}, config(), c).path_s, 5e-6 + 1.5e-6 + mib / 25e9);
  c.stage_compute_Bps = 60e9;  // one stage's rate over 3 stages: 20 GB/s, slower than the link
  expect_model_seconds(predict({Design::persistent, 1 << 20, 1}, config(), c).path_s, 5e-6 + 1.5e-6 + 3 * mib / 60e9);
  c.fused_compute_Bps = 10e9;
  expect_model_seconds(predict({Design::fused, 1 << 20, 1}, config(), c).path_s, 5e-6 + 1.5e-6 + mib / 10e9);
}

TEST(StreamModel, TheCeilingIsTheLeastOfTheLinkBothWaysComputeAndTheHostsCalls) {
  Ceilings c = distinct_ceilings();
  EXPECT_DOUBLE_EQ(predict({Design::chunked, 1 << 20, 8}, config(), c).ceiling_Bps, 70e9 / 2) << "bidir/2";
  c.link.bidirectional_Bps = 100e9;
  EXPECT_DOUBLE_EQ(predict({Design::chunked, 1 << 20, 8}, config(), c).ceiling_Bps, 40e9) << "D2H, the slower way";
  c.link.h2d_Bps = 39e9;
  EXPECT_DOUBLE_EQ(predict({Design::chunked, 1 << 20, 8}, config(), c).ceiling_Bps, 39e9) << "H2D, now slower";
  c.stage_compute_Bps = 90e9;  // 30 GB/s a stage of three
  const Prediction compute = predict({Design::pipeline, 1 << 20, 8}, config(), c);
  EXPECT_DOUBLE_EQ(compute.ceiling_Bps, 90e9 / 3);
  EXPECT_EQ(compute.ceiling_basis, "compute");
  // 64 KiB chunks: 3 host calls of 4 us each per chunk bind chunked (5.46 GB/s); zerocopy makes one call.
  EXPECT_DOUBLE_EQ(predict({Design::chunked, 64 << 10, 8}, config(), c).ceiling_Bps, (64 << 10) / (3 * 4e-6));
  EXPECT_DOUBLE_EQ(predict({Design::zerocopy, 64 << 10, 8}, config(), c).ceiling_Bps, (64 << 10) / (1 * 4e-6));
}

TEST(StreamModel, DeepChunksWaitBehindTheOthersAndDepthRaisesThroughputUntilTheCeiling) {
  // chunked at 1 MiB: a path of 64.2 us against the ceiling of 35 GB/s, 30.0 us a chunk.
  const Ceilings c = distinct_ceilings();
  const double path = 11e-6 + (2e-6 + mib / 50e9) + (3e-6 + mib / 40e9) + mib / 1000e9;
  for (int depth : {1, 2}) {
    const Prediction p = predict({Design::chunked, 1 << 20, depth}, config(), c);
    expect_model_seconds(p.latency_s, path);  // 2 x 30.0 us of link is still less than the path
    expect_model_seconds(p.throughput_Bps, depth * mib / path);
  }
  const Prediction three = predict({Design::chunked, 1 << 20, 3}, config(), c);
  expect_model_seconds(three.latency_s, 3 * mib / 35e9);
  EXPECT_EQ(three.latency_basis, "depth 3 x chunk / PCIe both ways (bidir/2)");
  EXPECT_DOUBLE_EQ(three.throughput_Bps, 35e9);
}

TEST(StreamModel, NoModelWhenTheProfileLacksAFigure) {
  Ceilings c = ceilings();
  c.link.zero_copy_read_Bps = 0;
  EXPECT_EQ(predict({Design::zerocopy, 4096, 1}, config(), c).latency_s, 0);
  EXPECT_GT(predict({Design::chunked, 4096, 1}, config(), c).latency_s, 0) << "chunked does not read mapped memory";
}

}  // namespace
}  // namespace ferry::stream
