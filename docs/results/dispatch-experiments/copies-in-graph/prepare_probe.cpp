// Throwaway: +fused's iteration at 32768 keys in one process, blocks of 300 alternating, host clock and events;
// A = copy in, replay of the steps' graph, copy out, sync (HEAD); B = one graph holding the copies and the steps.
// Each iteration prepared as ferry's SortBench does (fresh keys, host output poisoned, device keys poisoned by a
// fill on the stream, then a sync), or with nothing ("bare"), or with the device fill on a second stream ("side").
// Every prepared iteration's output is checked.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "backend/buffer.hpp"
#include "backend/select.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"
#include "bench/dispatch/sort_keys.hpp"
#include "bench/common/verify.hpp"
using namespace ferry;
using namespace ferry::dispatch;
int main() {
  auto backend = make_backend("cuda");
  auto stream = backend->make_stream(0);
  const std::uint64_t n = 32768, tile = 2048;
  Buffer dev = backend->allocate_device(0, n * 4);
  Buffer in = backend->allocate_host(MemoryKind::pinned, n * 4), out = backend->allocate_host(MemoryKind::pinned, n * 4);
  std::mt19937 rng(1);
  for (std::uint64_t i = 0; i < n; ++i) in.as<std::uint32_t>()[i] = rng();
  auto* d = dev.as<std::uint32_t>();
  auto a = backend->make_event(0), b = backend->make_event(0);
  const std::vector<FusedStep> plan = fused_steps(n, tile);
  // The steps as enqueue_fused_sort captures them, step i programmatic where `programmatic(i)`.
  auto sort = [&](auto programmatic) {
    for (std::size_t i = 0; i < plan.size(); ++i) enqueue_fused_step(*stream, d, n, tile, plan[i], programmatic(i));
  };
  auto capture = [&](bool copies, auto programmatic) {
    stream->begin_capture();
    if (copies) stream->copy(d, in.data(), n * 4);
    sort(programmatic);
    if (copies) stream->copy(out.data(), d, n * 4);
    return stream->end_capture();
  };
  auto all = [](std::size_t) { return true; };
  auto steps = capture(false, all);
  auto whole = capture(true, all);
  auto side = backend->make_stream(0);
  std::uint64_t draw = 0;
  // 0 bare, 1 as ferry, 2 device fill on the side stream
  auto prepare = [&](int how) {
    if (how == 0) return;
    fill_keys(in.as<std::uint32_t>(), n, ++draw);
    poison_on_host(out.data(), n * 4);
    Stream& s = how == 1 ? *stream : *side;
    s.fill(d, 0xA5, n * 4);
    s.synchronize();
  };
  auto sorted = [&] {
    std::vector<std::uint32_t> want(in.as<std::uint32_t>(), in.as<std::uint32_t>() + n);
    std::sort(want.begin(), want.end());
    return std::equal(want.begin(), want.end(), out.as<const std::uint32_t>());
  };
  auto time = [&](const char* what, int how, const std::function<void()>& work) {
    for (int w = 0; w < 30; ++w) { prepare(how); work(); stream->synchronize(); }
    std::vector<double> host, device;
    int wrong = 0;
    for (int i = 0; i < 300; ++i) {
      prepare(how);
      const auto t0 = std::chrono::steady_clock::now();
      stream->record(*a);
      work();
      stream->record(*b);
      stream->synchronize();
      host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      device.push_back(b->seconds_since(*a) * 1e6);
      if (how != 0 && !sorted()) ++wrong;
    }
    std::sort(host.begin(), host.end());
    std::sort(device.begin(), device.end());
    std::printf("%-30s host %6.2f us (p10 %6.2f, p90 %6.2f)  device %6.2f us (p10 %6.2f, p90 %6.2f)  %s\n", what, host[150],
                host[30], host[270], device[150], device[30], device[270], how == 0 ? "unchecked" : wrong ? "WRONG" : "all sorted");
  };
  auto copied = [&](Graph& g) {
    return [&, graph = &g] {
      stream->copy(d, in.data(), n * 4);
      stream->replay(*graph);
      stream->copy(out.data(), d, n * 4);
    };
  };
  for (int block = 0; block < 3; ++block) {
    time("A bare", 0, copied(*steps));
    time("A prepared as ferry", 1, copied(*steps));
    time("A prepared, fill on a side stream", 2, copied(*steps));
    time("B bare", 0, [&] { stream->replay(*whole); });
    time("B prepared as ferry", 1, [&] { stream->replay(*whole); });
    time("B prepared, fill on a side stream", 2, [&] { stream->replay(*whole); });
  }
  return 0;
}
