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
  EXPECT_DOUBLE_EQ(p.latency_s, 3e-6 + chunk / 40e9) << "read, stages and write overlap: the slowest rate, write, binds";
  EXPECT_DOUBLE_EQ(p.throughput_Bps, chunk / p.latency_s) << "depth 1: one chunk at a time";
}

TEST(StreamModel, PipelineLatencyGrowsWithItsStages) {
  StreamConfig more = config();
  more.stages = 6;
  const Prediction three = predict({Design::pipeline, 4096, 1}, config(), ceilings());
  const Prediction six = predict({Design::pipeline, 4096, 1}, more, ceilings());
  EXPECT_DOUBLE_EQ(six.latency_s - three.latency_s, 3 * 4e-6 + 3 * 4096 / 1200e9) << "three more launches and kernels";
}

TEST(StreamModel, NoModelWhenTheProfileLacksAFigure) {
  Ceilings c = ceilings();
  c.link.zero_copy_read_Bps = 0;
  EXPECT_EQ(predict({Design::zerocopy, 4096, 1}, config(), c).latency_s, 0);
  EXPECT_GT(predict({Design::chunked, 4096, 1}, config(), c).latency_s, 0) << "chunked does not read mapped memory";
}

}  // namespace
}  // namespace ferry::stream
