// One FERRY_HD functor on every backend this machine has: the emulator always,
// the GPU where one answers (CI has none; the GPU machine runs this too).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "backend/launch.hpp"
#include "backend/select.hpp"
#include "core/error.hpp"

namespace ferry {
namespace {

struct MixKernel {
  const std::uint32_t* input;
  std::uint64_t* output;
  FERRY_HD void operator()(std::int64_t i) const {
    std::uint64_t x = input[i];
    for (int round = 0; round < 7; ++round) x = x * 6364136223846793005ull + static_cast<std::uint64_t>(i);
    output[i] = x ^ (x >> 29);
  }
};

std::vector<std::uint64_t> run_on(Backend& backend, const std::vector<std::uint32_t>& input) {
  const std::size_t n = input.size();
  auto stream = backend.make_stream(0);
  Buffer host_in = backend.allocate_host(MemoryKind::pinned, n * sizeof(std::uint32_t));
  Buffer host_out = backend.allocate_host(MemoryKind::pinned, n * sizeof(std::uint64_t));
  Buffer device_in = backend.allocate_device(0, n * sizeof(std::uint32_t));
  Buffer device_out = backend.allocate_device(0, n * sizeof(std::uint64_t));
  std::copy(input.begin(), input.end(), host_in.as<std::uint32_t>());
  std::fill_n(host_out.as<std::uint64_t>(), n, 0xA5A5A5A5A5A5A5A5ull);  // poison
  stream->fill(device_out.data(), 0xA5, device_out.bytes());
  stream->copy(device_in.data(), host_in.data(), host_in.bytes());
  parallel_for(*stream, static_cast<std::int64_t>(n), MixKernel{device_in.as<const std::uint32_t>(), device_out.as<std::uint64_t>()});
  stream->copy(host_out.data(), device_out.data(), device_out.bytes());
  stream->synchronize();
  return {host_out.as<std::uint64_t>(), host_out.as<std::uint64_t>() + n};
}

std::vector<std::uint32_t> random_input(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  std::uint32_t s = 12345;
  for (auto& x : v) x = s = s * 1664525u + 1013904223u;
  return v;
}

std::vector<std::uint64_t> on_the_host(const std::vector<std::uint32_t>& input) {
  std::vector<std::uint64_t> out(input.size());
  const MixKernel k{input.data(), out.data()};
  for (std::size_t i = 0; i < input.size(); ++i) k(static_cast<std::int64_t>(i));
  return out;
}

TEST(Kernel, TheEmulatorComputesWhatTheFunctorSays) {
  const auto input = random_input(100'003);  // not a multiple of any block size
  auto backend = make_backend("emu");
  EXPECT_EQ(run_on(*backend, input), on_the_host(input));
}

TEST(Kernel, TheGpuComputesTheSameAsTheEmulator) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << "no GPU here: " << cuda_unavailable_reason();
  const auto input = random_input(10'000'019);  // several grid-stride rounds
  auto gpu = make_backend("cuda");
  auto emu = make_backend("emu");
  const auto on_gpu = run_on(*gpu, input);
  EXPECT_EQ(on_gpu, run_on(*emu, input));
  EXPECT_EQ(on_gpu, on_the_host(input));
}

// Host work queued on a stream runs after the device work before it, and a
// failure in it surfaces at the next synchronize, on each backend here.
void check_host_work_order(Backend& backend) {
  auto stream = backend.make_stream(0);
  Buffer device = backend.allocate_device(0, 1024 * sizeof(std::uint64_t));
  Buffer host = backend.allocate_host(MemoryKind::pinned, 1024 * sizeof(std::uint64_t));
  std::fill_n(host.as<std::uint64_t>(), 1024, 0);
  const std::vector<std::uint32_t> input(1024, 7);
  Buffer device_in = backend.allocate_device(0, input.size() * sizeof(std::uint32_t));
  Buffer host_in = backend.allocate_host(MemoryKind::pinned, device_in.bytes());
  std::copy(input.begin(), input.end(), host_in.as<std::uint32_t>());
  stream->copy(device_in.data(), host_in.data(), host_in.bytes());
  parallel_for(*stream, 1024, MixKernel{device_in.as<const std::uint32_t>(), device.as<std::uint64_t>()});
  stream->copy(host.data(), device.data(), device.bytes());
  std::uint64_t seen = 0;
  stream->enqueue_host([&] { seen = host.as<std::uint64_t>()[1023]; });
  stream->synchronize();
  EXPECT_EQ(seen, on_the_host(input)[1023]);

  stream->enqueue_host([] { throw RuntimeFailure("host work failed"); });
  EXPECT_THROW(stream->synchronize(), RuntimeFailure);
  stream->synchronize();  // reported once
}

TEST(Kernel, HostWorkRunsInStreamOrderOnTheEmulator) { check_host_work_order(*make_backend("emu")); }

TEST(Kernel, HostWorkRunsInStreamOrderOnTheGpu) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << "no GPU here: " << cuda_unavailable_reason();
  check_host_work_order(*make_backend("cuda"));
}

}  // namespace
}  // namespace ferry
