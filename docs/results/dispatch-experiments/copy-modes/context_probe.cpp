// Throwaway: what makes the copies and the fastest sort slower beside other work than alone (same_state_probe)?
// Blocks of 300, each iteration: optional work before (untimed), prepare as SortBench does, the timed work, optional
// check. Host clock and device clock (events) of the timed work only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>
#include <thread>
#include <cstring>

#include "backend/buffer.hpp"
#include "backend/select.hpp"
#include "bench/common/verify.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"
#include "bench/dispatch/sort_keys.hpp"
using namespace ferry;
using namespace ferry::dispatch;
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
  auto cluster = capture([&] { enqueue_cluster_sort(*stream, o, o, n, tile); });
  std::uint64_t draw = 0;
  auto prepare = [&] {
    fill_keys(in.as<std::uint32_t>(), n, ++draw);
    poison_on_host(out.data(), n * 4);
    stream->fill(d, 0xA5, n * 4);
    stream->synchronize();
  };
  auto cpu_sort = [&] {  // the check +fused's iterations do: a sorted copy of the keys, compared
    std::vector<std::uint32_t> want(in.as<std::uint32_t>(), in.as<std::uint32_t>() + n);
    std::sort(want.begin(), want.end());
    return std::equal(want.begin(), want.end(), out.as<const std::uint32_t>());
  };
  std::vector<std::uint32_t> want(n), scratch(1 << 18);
  auto sort_kept = [&] {  // the same check with its buffer kept
    std::copy(in.as<std::uint32_t>(), in.as<std::uint32_t>() + n, want.begin());
    std::sort(want.begin(), want.end());
    return std::equal(want.begin(), want.end(), out.as<const std::uint32_t>());
  };
  auto idle = [](int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); };
  auto spin = [](int us) { const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us); while (std::chrono::steady_clock::now() < end) {} };
  auto copies = [&] { stream->copy(d, in.data(), n * 4); stream->copy(out.data(), d, n * 4); };
  auto fused = [&] { stream->copy(d, in.data(), n * 4); stream->replay(*steps); stream->copy(out.data(), d, n * 4); };
  auto sort_other = [&] { stream->replay(*cluster); };
  auto steps_alone = [&] { stream->replay(*steps); };
  auto nothing = [] {};
  stream->copy(o, in.data(), n * 4);
  stream->synchronize();
  int wrong = 0;
  auto time = [&](const char* what, const std::function<void()>& before, bool prep, const std::function<void()>& work,
                  int check /*0 none, 1 std::sort, 2 equal*/) {
    std::vector<double> host, device;
    for (int i = 0; i < 330; ++i) {
      before();
      stream->synchronize();
      if (prep) prepare();
      const auto t0 = std::chrono::steady_clock::now();
      stream->record(*a);
      work();
      stream->record(*b);
      stream->synchronize();
      const double h = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      if (check == 1) wrong += !cpu_sort();
      if (check == 3) wrong += !sort_kept();
      if (check == 4) idle(1000);
      if (check == 5) spin(1000);
      if (check == 6) std::memset(scratch.data(), i, scratch.size() * 4);
      if (check == 7) idle(100);
      if (check == 8) idle(300);
      if (check == 2) wrong += !std::equal(in.as<const std::uint32_t>(), in.as<const std::uint32_t>() + n, out.as<const std::uint32_t>());
      if (i >= 30) { host.push_back(h); device.push_back(b->seconds_since(*a) * 1e6); }
    }
    std::sort(host.begin(), host.end());
    std::sort(device.begin(), device.end());
    std::printf("%-52s host %6.2f (p10 %6.2f p90 %6.2f)  device %6.2f (p10 %6.2f p90 %6.2f)\n", what, host[150], host[30],
                host[270], device[150], device[30], device[270]);
  };
  for (int block = 0; block < 3; ++block) {
    std::printf("-- block %d\n", block);
    time("C0 copies, then equal (as ferry's copies figure)", nothing, true, copies, 2);
    time("C1 copies, then the sort check (new buffer)", nothing, true, copies, 1);
    time("C5 copies, then the sort check (buffer kept)", nothing, true, copies, 3);
    time("C4 copies, then sleep 1 ms", nothing, true, copies, 4);
    time("C8 copies, then sleep 300 us", nothing, true, copies, 8);
    time("C7 copies, then sleep 100 us", nothing, true, copies, 7);
    time("C6 copies, then spin 1 ms", nothing, true, copies, 5);
    time("C9 copies, then memset 1 MiB", nothing, true, copies, 6);
    time("A0 +fused, sort check (as ferry)", nothing, true, fused, 1);
    time("A1 +fused, no check", nothing, true, fused, 0);
    time("A2 +fused, sort check (buffer kept)", nothing, true, fused, 3);
    time("A4 +fused, then sleep 1 ms", nothing, true, fused, 4);
    time("A6 +fused, then spin 1 ms", nothing, true, fused, 5);
    time("S0 cluster sort alone, repeated", nothing, false, sort_other, 0);
    time("F0 steps' graph alone, repeated", nothing, false, steps_alone, 0);
  }
  std::printf("wrong outputs %d (C1 and C5 check unsorted copies for a sort: 660 a block expected, 1980 in all)\n", wrong);
  return 0;
}
