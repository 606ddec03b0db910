// Throwaway: +fused against its ceiling in the same state of the machine. The host path's latency switches between
// two states over time (pinned_probe), so each round runs, one after another: C the copies alone, A +fused (copy in,
// the steps' graph, copy out), B the copies captured in the steps' graph, S the fastest sort (the cluster kernel on
// device memory, device clock), F the steps' graph alone (device clock). Each copying iteration prepared as SortBench
// does (fresh keys, poisoned output, device keys poisoned by a fill, sync) and checked. Ceiling_i = C_i + S_i.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "backend/buffer.hpp"
#include "backend/select.hpp"
#include "bench/common/verify.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"
#include "bench/dispatch/sort_keys.hpp"
using namespace ferry;
using namespace ferry::dispatch;
static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main() {
  auto backend = make_backend("cuda");
  auto stream = backend->make_stream(0);
  const std::uint64_t n = 32768, tile = 2048;
  Buffer dev = backend->allocate_device(0, n * 4), other = backend->allocate_device(0, n * 4);
  Buffer in = backend->allocate_host(MemoryKind::pinned, n * 4), out = backend->allocate_host(MemoryKind::pinned, n * 4);
  auto* d = dev.as<std::uint32_t>();
  auto* o = other.as<std::uint32_t>();
  auto a = backend->make_event(0), b = backend->make_event(0);
  auto capture = [&](const std::function<void()>& work) {
    stream->begin_capture();
    work();
    return stream->end_capture();
  };
  auto steps = capture([&] { enqueue_fused_sort(*stream, d, d, d, n, tile, true); });
  auto whole = capture([&] {
    stream->copy(d, in.data(), n * 4);
    enqueue_fused_sort(*stream, d, d, d, n, tile, true);
    stream->copy(out.data(), d, n * 4);
  });
  auto cluster = capture([&] { enqueue_cluster_sort(*stream, o, o, n, tile); });
  std::uint64_t draw = 0;
  auto prepare = [&] {
    fill_keys(in.as<std::uint32_t>(), n, ++draw);
    poison_on_host(out.data(), n * 4);
    stream->fill(d, 0xA5, n * 4);
    stream->synchronize();
  };
  auto copied_right = [&] { return std::equal(in.as<const std::uint32_t>(), in.as<const std::uint32_t>() + n, out.as<const std::uint32_t>()); };
  auto sorted = [&] {
    std::vector<std::uint32_t> want(in.as<std::uint32_t>(), in.as<std::uint32_t>() + n);
    std::sort(want.begin(), want.end());
    return std::equal(want.begin(), want.end(), out.as<const std::uint32_t>());
  };
  struct Timed { double host, device; };
  auto run = [&](const std::function<void()>& work) {
    const auto t0 = std::chrono::steady_clock::now();
    stream->record(*a);
    work();
    stream->record(*b);
    stream->synchronize();
    return Timed{std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count(), b->seconds_since(*a) * 1e6};
  };
  auto h2d = [&] { stream->copy(d, in.data(), n * 4); };
  auto d2h = [&] { stream->copy(out.data(), d, n * 4); };
  // The cluster kernel sorts `other`: fresh keys there once, then it re-sorts sorted keys (bitonic is oblivious).
  stream->copy(o, in.data(), n * 4);
  stream->synchronize();
  struct Round { Timed c, fa, fb, s, f; };
  std::vector<Round> rounds;
  int wrong = 0;
  for (int r = 0; r < 1230; ++r) {
    Round x{};
    prepare(); x.c = run([&] { h2d(); d2h(); }); wrong += !copied_right();
    prepare(); x.fa = run([&] { h2d(); stream->replay(*steps); d2h(); }); wrong += !sorted();
    prepare(); x.fb = run([&] { stream->replay(*whole); }); wrong += !sorted();
    x.s = run([&] { stream->replay(*cluster); });
    x.f = run([&] { stream->replay(*steps); });
    if (r >= 30) rounds.push_back(x);
  }
  std::printf("rounds %zu, wrong outputs %d\n", rounds.size(), wrong);
  // The copies' device time splits the rounds into the two states; print the histogram to pick the split.
  std::vector<int> histogram(40, 0);
  for (auto& x : rounds) histogram[std::min(39, static_cast<int>(x.c.device))]++;
  std::printf("copies' device time, us: count\n");
  for (int i = 0; i < 40; ++i) if (histogram[i]) std::printf("  %2d-%2d: %d\n", i, i + 1, histogram[i]);
  auto report = [&](const char* name, auto keep) {
    std::vector<double> c, cd, fa, fb, s, f, ra, rb, floor_a;
    for (auto& x : rounds) {
      if (!keep(x)) continue;
      c.push_back(x.c.host); cd.push_back(x.c.device); fa.push_back(x.fa.host); fb.push_back(x.fb.host);
      s.push_back(x.s.device); f.push_back(x.f.device);
      ra.push_back(x.fa.host / (x.c.host + x.s.device)); rb.push_back(x.fb.host / (x.c.host + x.s.device));
      floor_a.push_back((x.c.host + x.f.device) / (x.c.host + x.s.device));
    }
    std::printf("%-28s rounds %4zu | copies host %6.2f (device %6.2f) | A +fused %6.2f  B in graph %6.2f | S cluster %6.2f  F steps %6.2f (device)"
                " | A/ceiling %5.1f%%  B/ceiling %5.1f%%  (copies + F)/ceiling %5.1f%%\n",
                name, c.size(), median(c), median(cd), median(fa), median(fb), median(s), median(f), 100 * median(ra),
                100 * median(rb), 100 * median(floor_a));
  };
  report("all rounds", [](const Round&) { return true; });
  report("copies' device < 19 us", [](const Round& x) { return x.c.device < 19; });
  report("copies' device >= 19 us", [](const Round& x) { return x.c.device >= 19; });
  // Where the state held for the whole round (A's copies were in the same state as C's).
  return 0;
}
