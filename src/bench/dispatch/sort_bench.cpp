#include "bench/dispatch/sort_bench.hpp"

#include <algorithm>
#include <utility>

#include "bench/common/verify.hpp"
#include "bench/dispatch/dispatch.hpp"
#include "bench/dispatch/resident_sorter.hpp"
#include "bench/dispatch/sort_keys.hpp"
#include "core/check.hpp"

namespace ferry::dispatch {
namespace {

// A persistent team per tile, up to as many teams as the device holds at once.
int teams_for(std::uint64_t keys, std::uint64_t tile, int capacity) {
  return static_cast<int>(std::min<std::uint64_t>(keys / tile, static_cast<std::uint64_t>(std::max(1, capacity))));
}

// The test hook's fault: the first two neighbouring keys that differ, swapped. Equal keys swapped
// would leave a sorted output sorted (and a copy intact), which the check would rightly pass; keys
// all equal have no such pair, so one of them is changed instead.
void swap_two_keys(std::uint32_t* keys, std::uint64_t count) {
  for (std::uint64_t i = 0; i + 1 < count; ++i)
    if (keys[i] != keys[i + 1]) {
      std::swap(keys[i], keys[i + 1]);
      return;
    }
  keys[0] += 1;
}

}  // namespace

SortBench::SortBench(Backend& backend, int device, std::uint64_t keys, std::uint64_t tile, int iterations)
    : backend_(backend),
      device_(device),
      count_(keys),
      iterations_(iterations),
      tile_(std::min(tile, keys)),
      passes_(bitonic_passes(keys)),
      steps_(dispatch::fused_steps(keys, tile_)),
      device_keys_(backend.allocate_device(device, keys * 4)),
      pageable_{backend.allocate_host(MemoryKind::pageable, keys * 4),
                backend.allocate_host(MemoryKind::pageable, keys * 4)},
      pinned_{backend.allocate_host(MemoryKind::pinned, keys * 4), backend.allocate_host(MemoryKind::pinned, keys * 4)},
      stream_(backend.make_stream(device)) {}

Dispatches SortBench::dispatches(Rung rung) const {
  const RungPlan& p = plan(rung);
  if (p.on_chip) return {.kernels = 1, .barriers = 0};
  // +resident launches its kernel once before the sorts, and meets at one more barrier a sort to start it.
  if (p.resident) return {.kernels = 0, .barriers = steps_.size()};
  if (p.persistent || p.cluster) return {.kernels = 1, .barriers = steps_.size() - 1};
  return {.kernels = p.fused ? steps_.size() : passes_.size(), .barriers = 0};
}

SortBench::HostKeys& SortBench::host(MemoryKind kind) {
  if (kind != MemoryKind::mapped) return kind == MemoryKind::pinned ? pinned_ : pageable_;
  if (!mapped_)  // only the rungs without copies read it: allocated when the first runs
    mapped_ = HostKeys{backend_.allocate_host(MemoryKind::mapped, count_ * 4),
                       backend_.allocate_host(MemoryKind::mapped, count_ * 4)};
  return *mapped_;
}

void SortBench::fresh_keys(HostKeys& keys) {
  fill_keys(keys.in.as<std::uint32_t>(), count_, draws_++);
  poison_on_host(keys.out.data(), keys.out.bytes());
  stream_->fill(device_keys_.data(), poison_byte, device_keys_.bytes());
  stream_->synchronize();
}

bool SortBench::sorted_correctly(const HostKeys& keys) const {
  return holds_the_input_sorted(keys.in.as<const std::uint32_t>(), keys.out.as<const std::uint32_t>(), count_);
}

bool SortBench::copied_correctly(const HostKeys& keys) const {
  return std::equal(keys.in.as<const std::uint32_t>(), keys.in.as<const std::uint32_t>() + count_,
                    keys.out.as<const std::uint32_t>());
}

std::function<bool()> SortBench::output_check(HostKeys& keys, FirstSample first, std::function<bool()> intact) {
  return [this, &keys, intact = std::move(intact), corrupt = first == FirstSample::corrupted]() mutable {
    if (std::exchange(corrupt, false)) swap_two_keys(keys.out.as<std::uint32_t>(), count_);
    return checked("dispatch.sorted", intact());
  };
}

Measurement SortBench::timed(HostKeys& keys, bool copy_keys, const std::function<void(Stream&)>& sort,
                             const std::function<bool()>& check) {
  return time_on_host(*stream_, sort_repeat(iterations_),
                      {.prepare = [&] { fresh_keys(keys); },
                       .enqueue =
                           [&](Stream& s) {
                             if (copy_keys) s.copy(device_keys_.data(), keys.in.data(), keys.in.bytes());
                             sort(s);
                             if (copy_keys) s.copy(keys.out.data(), device_keys_.data(), keys.out.bytes());
                           },
                       .check = check});
}

Measurement SortBench::copies(MemoryKind kind, FirstSample first) {
  HostKeys& keys = host(kind);
  return timed(
      keys, true, [](Stream&) {}, output_check(keys, first, [this, &keys] { return copied_correctly(keys); }));
}

void SortBench::enqueue_sort(Stream& stream, const RungPlan& plan, RungSetUp& set_up) {
  auto* keys = device_keys_.as<std::uint32_t>();
  if (plan.graph) {
    stream.replay(*set_up.graph);
  } else if (plan.persistent) {
    enqueue_persistent(stream, keys, count_, tile_, persistent_teams_);
  } else if (plan.on_chip) {
    enqueue_on_chip(stream, keys, count_);
  } else {
    for (std::size_t i = 0; i < passes_.size(); ++i) {
      enqueue_pass(stream, keys, count_, passes_[i], false);
      if (!plan.event_per_kernel) continue;
      // A direct port's pattern: the host waits for every kernel before it launches the next.
      std::unique_ptr<Event> fresh = plan.fresh_events ? backend_.make_event(device_) : nullptr;
      Event& done = fresh ? *fresh : *set_up.events[i];
      stream.record(done);
      done.synchronize();
    }
  }
}

Measurement SortBench::resident(const std::function<bool()>& check) {
  HostKeys& keys = host(MemoryKind::mapped);
  ResidentSorter sorter(backend_, device_, keys.in, keys.out, count_, tile_);
  return time_host_work(sort_repeat(iterations_),
                        {.prepare = [&] { fresh_keys(keys); }, .work = [&] { sorter.sort(); }, .check = check});
}

Measurement SortBench::rung(Rung rung, FirstSample first) {
  const RungPlan& p = plan(rung);
  HostKeys& keys = host(p.host);
  const std::function<bool()> check = output_check(keys, first, [this, &keys] { return sorted_correctly(keys); });
  if (p.resident) return resident(check);
  RungSetUp set_up;
  if (p.event_per_kernel && !p.fresh_events)
    for (std::size_t i = 0; i < passes_.size(); ++i) set_up.events.push_back(backend_.make_event(device_));
  if (p.persistent && persistent_teams_ == 0)
    persistent_teams_ = teams_for(count_, tile_, persistent_capacity(*stream_, tile_));
  if (p.graph) {
    auto* work = device_keys_.as<std::uint32_t>();
    stream_->begin_capture();
    // +zerocopy's first and last kernels, and +cluster's one, reach the host buffers themselves.
    std::uint32_t* in = p.zero_copy ? keys.in.device_view_as<std::uint32_t>() : work;
    std::uint32_t* out = p.zero_copy ? keys.out.device_view_as<std::uint32_t>() : work;
    if (p.cluster) {
      enqueue_cluster_sort(*stream_, in, out, count_, tile_);
    } else if (p.fused) {
      enqueue_fused_sort(*stream_, in, work, out, count_, tile_, p.programmatic);
    } else {
      for (const Pass& pass : passes_) enqueue_pass(*stream_, work, count_, pass, p.programmatic);
    }
    set_up.graph = stream_->end_capture();
  }
  return timed(
      keys, !p.zero_copy, [&](Stream& s) { enqueue_sort(s, p, set_up); }, check);
}

}  // namespace ferry::dispatch
