// The emulator's stand-ins for what a rank per device needs on a GPU: flags in device memory that order one
// stream's work after another's (cuStreamWriteValue64 / cuStreamWaitValue64), and device memory another
// process maps (CUDA IPC).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "backend/emu/emu_backend.hpp"
#include "core/error.hpp"

namespace ferry::emu_shared_test {
namespace {

using namespace std::chrono_literals;

TEST(EmuFlags, WorkAfterAWaitRunsOnlyOnceTheFlagReachesItsValue) {
  emu::EmuBackend backend;
  Buffer flag = backend.allocate_device(0, sizeof(std::uint64_t));
  *flag.as<std::uint64_t>() = 0;
  auto waiter = backend.make_stream(0);
  auto writer = backend.make_stream(1);
  std::atomic<bool> after_wait{false};
  waiter->wait_flag(flag.as<std::uint64_t>(), 2, 30);
  waiter->enqueue_host([&] { after_wait = true; });
  writer->write_flag(flag.as<std::uint64_t>(), 1);  // below the value waited for: the waiter goes on waiting
  writer->synchronize();
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(after_wait.load());
  writer->write_flag(flag.as<std::uint64_t>(), 2);
  waiter->synchronize();
  EXPECT_TRUE(after_wait.load());
  EXPECT_EQ(*flag.as<std::uint64_t>(), 2u);
}

TEST(EmuFlags, AFlagStoredAfterACopyIsSeenOnlyWithTheCopysBytes) {
  emu::EmuBackend backend;
  Buffer source = backend.allocate_device(0, 1 << 20);
  Buffer destination = backend.allocate_device(1, 1 << 20);
  Buffer flag = backend.allocate_device(1, sizeof(std::uint64_t));
  std::fill_n(source.as<unsigned char>(), 1 << 20, 0x5a);
  std::fill_n(destination.as<unsigned char>(), 1 << 20, 0);
  *flag.as<std::uint64_t>() = 0;
  auto sender = backend.make_stream(0);
  auto receiver = backend.make_stream(1);
  bool intact = false;
  receiver->wait_flag(flag.as<std::uint64_t>(), 1, 30);
  receiver->enqueue_host([&] {
    intact = std::all_of(destination.as<unsigned char>(), destination.as<unsigned char>() + (1 << 20),
                         [](unsigned char b) { return b == 0x5a; });
  });
  sender->copy(destination.data(), source.data(), 1 << 20);
  sender->write_flag(flag.as<std::uint64_t>(), 1);
  receiver->synchronize();
  EXPECT_TRUE(intact);
}

TEST(EmuFlags, AWaitThatOutlastsItsTimeoutFailsTheStreamsSynchronize) {
  emu::EmuBackend backend;
  Buffer flag = backend.allocate_device(0, sizeof(std::uint64_t));
  *flag.as<std::uint64_t>() = 3;
  auto stream = backend.make_stream(0);
  stream->wait_flag(flag.as<std::uint64_t>(), 4, 0.05);
  try {
    stream->synchronize();
    FAIL() << "a wait for a flag no one raises ended without failing";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("waited more than 0.05 s for a flag to reach 4 (it holds 3)"),
              std::string::npos)
        << e.what();
  }
}

// Another process (a child, as another rank would be) maps the memory by its handle and writes into it; the
// owner sees the bytes, and the child sees what the owner wrote before.
TEST(EmuSharedMemory, AnotherProcessMapsItByItsHandleAndTheyShareTheBytes) {
  emu::EmuBackend backend;
  Buffer mine = backend.allocate_device_shared(1, 8192);
  mine.as<std::uint64_t>()[0] = 0x1234;
  const std::vector<std::uint8_t> handle = backend.export_shared(mine);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 1;
    try {
      emu::EmuBackend other;
      Buffer theirs = other.open_shared(2, handle);
      if (theirs.bytes() == 8192 && theirs.as<std::uint64_t>()[0] == 0x1234) {
        theirs.as<std::uint64_t>()[1023] = 0xfeed;
        code = 0;
      }
    } catch (...) {
      code = 2;
    }
    std::_Exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the other process did not see the owner's bytes (1) or could not map them (2)";
  EXPECT_EQ(mine.as<std::uint64_t>()[1023], 0xfeedu);
}

TEST(EmuSharedMemory, CountsAgainstTheDevicesMemoryUntilItGoes) {
  emu::EmuBackend backend;
  const std::uint64_t before = backend.device_status(3).free_bytes;
  {
    Buffer mine = backend.allocate_device_shared(3, 1 << 20);
    EXPECT_EQ(backend.device_status(3).free_bytes, before - (1 << 20));
  }
  EXPECT_EQ(backend.device_status(3).free_bytes, before);
}

TEST(EmuSharedMemory, OnlyMemoryFromAllocateDeviceSharedIsExported) {
  emu::EmuBackend backend;
  Buffer plain = backend.allocate_device(0, 4096);
  EXPECT_THROW(backend.export_shared(plain), RuntimeFailure);
  EXPECT_THROW(backend.open_shared(0, std::vector<std::uint8_t>(3)), RuntimeFailure);
}

TEST(EmuDevices, FerryEmuDevicesSetsTheCountAndABadValueIsRefused) {
  ::setenv("FERRY_EMU_DEVICES", "8", 1);
  EXPECT_EQ(emu::EmuBackend().device_count(), 8);
  EXPECT_NO_THROW(emu::EmuBackend().make_stream(7));
  for (const char* bad : {"0", "65", "4x", "-2"}) {
    ::setenv("FERRY_EMU_DEVICES", bad, 1);
    EXPECT_THROW(emu::EmuBackend(), UsageError) << bad;
  }
  ::unsetenv("FERRY_EMU_DEVICES");
  EXPECT_EQ(emu::EmuBackend().device_count(), emu::EmuBackend::default_devices);
}

}  // namespace
}  // namespace ferry::emu_shared_test
