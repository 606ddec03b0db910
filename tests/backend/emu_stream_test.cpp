#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/emu/emu_backend.hpp"
#include "core/error.hpp"

namespace ferry {
namespace {

using namespace std::chrono_literals;

TEST(EmuStream, RunsWorkInTheOrderItWasEnqueued) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) {
    stream->enqueue_host([&order, i] {
      if (i % 10 == 0) std::this_thread::sleep_for(100us);  // a slow step must not let later ones pass it
      order.push_back(i);
    });
  }
  stream->synchronize();
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(EmuStream, ACopyAfterAKernelSeesTheKernelsOutput) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  Buffer device = backend.allocate_device(0, 64);
  Buffer host = backend.allocate_host(MemoryKind::pinned, 64);
  stream->enqueue_host([&] {
    std::this_thread::sleep_for(1ms);
    for (int i = 0; i < 64; ++i) device.data()[i] = std::byte(i);
  });
  stream->copy(host.data(), device.data(), 64);
  stream->synchronize();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(host.data()[i], std::byte(i));
}

TEST(EmuStream, AStreamWaitingOnAnEventRunsAfterTheOtherStreamReachedIt) {
  emu::EmuBackend backend;
  auto producer = backend.make_stream(0);
  auto consumer = backend.make_stream(1);
  auto ready = backend.make_event(0);
  std::atomic<int> value{0};
  int seen = -1;
  producer->enqueue_host([&] {
    std::this_thread::sleep_for(5ms);
    value = 42;
  });
  producer->record(*ready);
  consumer->wait(*ready);
  consumer->enqueue_host([&] { seen = value.load(); });
  consumer->synchronize();
  EXPECT_EQ(seen, 42);
  producer->synchronize();
}

TEST(EmuStream, AWaitIsForTheRecordLatestWhenItWasIssued) {
  emu::EmuBackend backend;
  auto a = backend.make_stream(0);
  auto b = backend.make_stream(0);
  auto event = backend.make_event(0);
  std::atomic<bool> gate{false};
  a->record(*event);  // first record: completes at once
  a->synchronize();
  a->enqueue_host([&] {
    while (!gate) std::this_thread::sleep_for(100us);
  });
  a->record(*event);  // second record: held back by the gate
  std::atomic<bool> ran{false};
  b->wait(*event);
  b->enqueue_host([&] { ran = true; });
  std::this_thread::sleep_for(5ms);
  EXPECT_FALSE(ran) << "b passed a record that had not completed";
  gate = true;
  b->synchronize();
  EXPECT_TRUE(ran);
}

TEST(EmuStream, EventsTimeTheWorkBetweenThem) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  auto start = backend.make_event(0), end = backend.make_event(0);
  const auto before = std::chrono::steady_clock::now();
  stream->record(*start);
  stream->enqueue_host([] { std::this_thread::sleep_for(20ms); });
  stream->record(*end);
  end->synchronize();
  const double host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
  EXPECT_GE(end->seconds_since(*start), 0.019);
  // However long a busy machine makes the sleep, the events' interval lies within the host's view of it.
  EXPECT_LE(end->seconds_since(*start), host_seconds);
}

TEST(EmuStream, AGraphReplaysItsCapturedWorkInOrderEachTime) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  std::vector<int> log;
  stream->begin_capture();
  stream->enqueue_host([&] { log.push_back(1); });
  stream->enqueue_host([&] { log.push_back(2); });
  stream->enqueue_host([&] { log.push_back(3); });
  const auto graph = stream->end_capture();
  stream->synchronize();
  EXPECT_TRUE(log.empty()) << "captured work ran during capture";
  EXPECT_EQ(graph->operations(), 3u);
  for (int i = 0; i < 3; ++i) stream->replay(*graph);
  stream->synchronize();
  EXPECT_EQ(log, (std::vector<int>{1, 2, 3, 1, 2, 3, 1, 2, 3}));
}

TEST(EmuStream, AFailureInStreamWorkSurfacesAtSynchronize) {
  emu::EmuBackend backend;
  auto stream = backend.make_stream(0);
  stream->enqueue_host([] { throw RuntimeFailure("boom"); });
  EXPECT_THROW(stream->synchronize(), RuntimeFailure);
  stream->synchronize();  // reported once
}

TEST(EmuBackend, ADeviceThatDoesNotExistIsAUsageError) {
  emu::EmuBackend backend;
  EXPECT_THROW(backend.make_stream(emu::EmuBackend::default_devices), UsageError);
  EXPECT_THROW(backend.allocate_device(-1, 8), UsageError);
}

TEST(EmuBackend, MoreMemoryThanTheDeviceHasIsAUsageError) {
  emu::EmuBackend backend;
  const auto free = backend.device_status(0).free_bytes;
  EXPECT_THROW(backend.allocate_device(0, free + 1), UsageError);
}

TEST(EmuBackend, SaysItsTimingsAreNotGpuTimings) {
  emu::EmuBackend backend;
  EXPECT_FALSE(backend.capabilities().gpu_timings);
  EXPECT_FALSE(backend.describe_machine().gpu_timings);
}

}  // namespace
}  // namespace ferry
