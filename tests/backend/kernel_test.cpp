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
  parallel_for(*stream, static_cast<std::int64_t>(n),
               MixKernel{device_in.as<const std::uint32_t>(), device_out.as<std::uint64_t>()});
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

// Kernel k reads what kernel k - 1 wrote, from another block's part of the
// buffer, so a kernel that started before its predecessor finished would read
// stale words.
struct ShiftAndAddOne {
  const std::uint32_t* in;
  std::uint32_t* out;
  std::int64_t count;
  FERRY_HD void operator()(std::int64_t i) const { out[i] = in[(i + 4099) % count] + 1; }
};

std::vector<std::uint32_t> dependent_chain(Backend& backend, StreamOrder order, int kernels, std::int64_t count) {
  auto stream = backend.make_stream(0);
  Buffer a = backend.allocate_device(0, count * 4), b = backend.allocate_device(0, count * 4);
  Buffer host = backend.allocate_host(MemoryKind::pinned, count * 4);
  for (std::int64_t i = 0; i < count; ++i) host.as<std::uint32_t>()[i] = static_cast<std::uint32_t>(i * 7);
  stream->copy(a.data(), host.data(), host.bytes());
  stream->fill(b.data(), 0xA5, b.bytes());
  for (int k = 0; k < kernels; ++k) {
    const bool even = k % 2 == 0;
    parallel_for(*stream, count,
                 ShiftAndAddOne{(even ? a : b).as<const std::uint32_t>(), (even ? b : a).as<std::uint32_t>(), count},
                 order);
  }
  stream->copy(host.data(), (kernels % 2 == 0 ? a : b).data(), host.bytes());
  stream->synchronize();
  return {host.as<std::uint32_t>(), host.as<std::uint32_t>() + count};
}

void check_dependent_chain(Backend& backend, StreamOrder order) {
  constexpr int kernels = 64;
  constexpr std::int64_t count = 1 << 20;
  const auto out = dependent_chain(backend, order, kernels, count);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < count; ++i)
    wrong += out[i] != static_cast<std::uint32_t>(((i + kernels * 4099ll) % count) * 7 + kernels);
  EXPECT_EQ(wrong, 0) << "words that missed a predecessor's write";
}

TEST(Kernel, DependentKernelsSeeTheirPredecessorsWritesOnTheEmulator) {
  auto backend = make_backend("emu");
  check_dependent_chain(*backend, StreamOrder::complete);
  check_dependent_chain(*backend, StreamOrder::programmatic);
}

TEST(Kernel, ProgrammaticLaunchesStillWaitForTheirPredecessorOnTheGpu) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << "no GPU here: " << cuda_unavailable_reason();
  auto backend = make_backend("cuda");
  if (!backend->device_features(0).programmatic_launch) GTEST_SKIP() << "device 0 has no programmatic launch";
  check_dependent_chain(*backend, StreamOrder::complete);
  check_dependent_chain(*backend, StreamOrder::programmatic);
}

// Each team keeps a value in its on-chip memory, publishes it, waits for all
// teams at the grid barrier, then sums what every team published.
struct MeetAtTheGridBarrier {
  static constexpr std::size_t shared_bytes = 64 << 10;  // above 48 KiB: a GPU must opt in
  std::uint32_t* published;
  std::uint32_t* sums;
  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    auto* on_chip = reinterpret_cast<std::uint32_t*>(team.shared());
    const std::size_t last = shared_bytes / 4 - 1;
    if (team.rank() == team.size() - 1) on_chip[last] = static_cast<std::uint32_t>(team.index() + 1);
    team.sync();
    if (team.rank() == 0) published[team.index()] = 10 * on_chip[last];
    team.grid_sync();
    if (team.rank() == 0) {
      std::uint32_t sum = 0;
      for (int t = 0; t < team.count(); ++t) sum += published[t];
      sums[team.index()] = sum;
    }
  }
};

void check_grid_barrier(Backend& backend) {
  auto stream = backend.make_stream(0);
  const int teams = resident_teams(*stream, MeetAtTheGridBarrier{}, MeetAtTheGridBarrier::shared_bytes);
  ASSERT_GE(teams, 2);
  Buffer published = backend.allocate_device(0, teams * 4), sums = backend.allocate_device(0, teams * 4);
  Buffer host = backend.allocate_host(MemoryKind::pinned, teams * 4);
  stream->fill(published.data(), 0, published.bytes());
  stream->fill(sums.data(), 0xA5, sums.bytes());
  parallel_teams(*stream, teams, MeetAtTheGridBarrier{published.as<std::uint32_t>(), sums.as<std::uint32_t>()},
                 Residency::all_at_once, MeetAtTheGridBarrier::shared_bytes);
  stream->copy(host.data(), sums.data(), host.bytes());
  stream->synchronize();
  const auto expected = static_cast<std::uint32_t>(10 * teams * (teams + 1) / 2);
  for (int t = 0; t < teams; ++t) EXPECT_EQ(host.as<std::uint32_t>()[t], expected) << "team " << t;
}

TEST(Kernel, TeamsMeetAtTheGridBarrierOnTheEmulator) { check_grid_barrier(*make_backend("emu")); }

TEST(Kernel, TeamsMeetAtTheGridBarrierOnTheGpu) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << "no GPU here: " << cuda_unavailable_reason();
  check_grid_barrier(*make_backend("cuda"));
}

// Each team writes its number into its own on-chip memory, meets the others
// at the cluster barrier, then reads every other team's on-chip memory.
struct ReadTheWholeCluster {
  std::uint32_t* sums;
  template <class Team>
  FERRY_HD void operator()(const Team& team) const {
    auto* mine = reinterpret_cast<std::uint32_t*>(team.shared());
    if (team.rank() == 0) mine[0] = static_cast<std::uint32_t>(team.index() + 1);
    team.cluster_sync();
    if (team.rank() == 0) {
      std::uint32_t sum = 0;
      for (int t = 0; t < team.count(); ++t) sum += 10 * reinterpret_cast<const std::uint32_t*>(team.peer_shared(t))[0];
      sums[team.index()] = sum;
    }
    team.cluster_sync();  // no team leaves while another may still read its memory
  }
};

void check_cluster(Backend& backend) {
  const int teams = backend.device_features(0).cluster_teams;
  ASSERT_GE(teams, 2);
  auto stream = backend.make_stream(0);
  Buffer sums = backend.allocate_device(0, teams * 4);
  Buffer host = backend.allocate_host(MemoryKind::pinned, teams * 4);
  stream->fill(sums.data(), 0xA5, sums.bytes());
  parallel_teams(*stream, teams, ReadTheWholeCluster{sums.as<std::uint32_t>()}, Residency::one_cluster, 16);
  stream->copy(host.data(), sums.data(), host.bytes());
  stream->synchronize();
  const auto expected = static_cast<std::uint32_t>(10 * teams * (teams + 1) / 2);
  for (int t = 0; t < teams; ++t) EXPECT_EQ(host.as<std::uint32_t>()[t], expected) << "team " << t;
  EXPECT_THROW(parallel_teams(*stream, teams + 1, ReadTheWholeCluster{sums.as<std::uint32_t>()}, Residency::one_cluster,
                              16),
               RuntimeFailure)
      << "a cluster larger than the device holds is refused before it runs";
  stream->synchronize();
}

TEST(Kernel, TeamsReachEachOthersOnChipMemoryInAClusterOnTheEmulator) { check_cluster(*make_backend("emu")); }

TEST(Kernel, TeamsReachEachOthersOnChipMemoryInAClusterOnTheGpu) {
  if (!cuda_unavailable_reason().empty()) GTEST_SKIP() << "no GPU here: " << cuda_unavailable_reason();
  check_cluster(*make_backend("cuda"));
}

}  // namespace
}  // namespace ferry
