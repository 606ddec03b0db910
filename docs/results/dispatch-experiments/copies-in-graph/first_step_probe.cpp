// Throwaway: +fused's iteration at 32768 keys in one process, blocks of 300 alternating, host clock and events:
// A = copy in, replay of the steps' graph, copy out, sync (HEAD); A1 = the same with the first step launched
// without the programmatic attribute; A0 = no step programmatic; B = one graph holding the copies and the steps;
// B1 = B with the first step not programmatic.
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
  std::vector<std::uint32_t> expected(in.as<std::uint32_t>(), in.as<std::uint32_t>() + n);
  std::sort(expected.begin(), expected.end());
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
  auto not_first = [](std::size_t i) { return i > 0; };
  auto none = [](std::size_t) { return false; };
  auto steps = capture(false, all), steps1 = capture(false, not_first), steps0 = capture(false, none);
  auto whole = capture(true, all), whole1 = capture(true, not_first);
  auto time = [&](const char* what, const std::function<void()>& work) {
    std::fill_n(out.as<std::uint32_t>(), n, 0xA5A5A5A5u);
    work();
    stream->synchronize();
    const bool ok = std::equal(expected.begin(), expected.end(), out.as<const std::uint32_t>());
    for (int w = 0; w < 30; ++w) { work(); stream->synchronize(); }
    std::vector<double> host, device;
    for (int i = 0; i < 300; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      stream->record(*a);
      work();
      stream->record(*b);
      stream->synchronize();
      host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      device.push_back(b->seconds_since(*a) * 1e6);
    }
    std::sort(host.begin(), host.end());
    std::sort(device.begin(), device.end());
    std::printf("%-34s host %6.2f us (p10 %6.2f, p90 %6.2f)  device %6.2f us (p10 %6.2f, p90 %6.2f)  %s\n", what, host[150],
                host[30], host[270], device[150], device[30], device[270], ok ? "sorted" : "WRONG");
  };
  auto copied = [&](Graph& g) {
    return [&, graph = &g] {
      stream->copy(d, in.data(), n * 4);
      stream->replay(*graph);
      stream->copy(out.data(), d, n * 4);
    };
  };
  for (int block = 0; block < 4; ++block) {
    time("A copy, steps graph, copy", copied(*steps));
    time("A1 ... first step not programmatic", copied(*steps1));
    time("A0 ... no step programmatic", copied(*steps0));
    time("B one graph with the copies", [&] { stream->replay(*whole); });
    time("B1 ... first step not programmatic", [&] { stream->replay(*whole1); });
  }
  return 0;
}
