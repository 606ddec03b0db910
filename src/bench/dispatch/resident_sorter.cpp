#include "bench/dispatch/resident_sorter.hpp"

#include <fmt/format.h>

#include "backend/hd.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/resident_sort.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"

namespace ferry::dispatch {
namespace {

// The kernel waits this long for the next sort, and the host this long for a
// sort's flags: far beyond a sort of the keys one cluster holds.
constexpr std::uint64_t kernel_idle_timeout_ns = 10'000'000'000ull;
constexpr double host_timeout_s = 5.0;

}  // namespace

ResidentSorter::ResidentSorter(Backend& backend, int device, const Buffer& in, Buffer& out, std::uint64_t count,
                               std::uint64_t tile)
    : teams_(static_cast<int>(count / tile)),
      flags_(backend.allocate_host(MemoryKind::mapped, (1 + static_cast<std::size_t>(teams_)) * sizeof(std::uint64_t))),
      stream_(backend.make_stream(device)) {
  auto* words = flags_.as<std::uint64_t>();
  for (int i = 0; i <= teams_; ++i) store_release_system(words + i, 0);
  launch_resident_sort(*stream_, in.device_view_as<const std::uint32_t>(), out.device_view_as<std::uint32_t>(), count,
                       tile, flags_.device_view_as<const std::uint64_t>(), flags_.device_view_as<std::uint64_t>() + 1,
                       kernel_idle_timeout_ns);
}

ResidentSorter::~ResidentSorter() {
  store_release_system(flags_.as<std::uint64_t>(), resident_stop);
  try {
    stream_->synchronize();
  } catch (const std::exception&) {
    // A kernel that failed has already been reported by the sort that saw it.
  }
}

void ResidentSorter::sort() {
  auto* words = flags_.as<std::uint64_t>();
  store_release_system(words, ++sorts_);
  const auto start = HostClock::now();
  for (int team = 0; team < teams_;) {
    const std::uint64_t done = load_acquire_system(words + 1 + team);
    if (done == resident_gave_up)
      throw RuntimeFailure(
          fmt::format("+resident: team {} of the sorting kernel gave up waiting for sort {}", team, sorts_));
    if (done == sorts_) {
      ++team;
      continue;
    }
    if (seconds_between(start, HostClock::now()) > host_timeout_s)
      throw RuntimeFailure(
          fmt::format("+resident: team {} did not finish sort {} within {} s", team, sorts_, host_timeout_s));
    spin_pause();
  }
}

}  // namespace ferry::dispatch
