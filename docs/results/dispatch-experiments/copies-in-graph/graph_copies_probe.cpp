// Throwaway: +fused's iteration at 32768 keys, two ways, in one process: A = copy in, replay of the steps' graph,
// copy out, sync (HEAD); B = one replay of a graph holding the copies and the steps, sync. Host wall time per
// iteration (steady clock) and device time (events around the same work), blocks of 300 alternating; B's graph
// instantiated afresh each block.
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
  stream->begin_capture();
  enqueue_fused_sort(*stream, d, d, d, n, tile, true);
  auto steps = stream->end_capture();
  auto whole = [&] {
    stream->begin_capture();
    stream->copy(d, in.data(), n * 4);
    enqueue_fused_sort(*stream, d, d, d, n, tile, true);
    stream->copy(out.data(), d, n * 4);
    return stream->end_capture();
  };
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
  for (int block = 0; block < 6; ++block) {
    time("A copy, steps graph, copy", [&] {
      stream->copy(d, in.data(), n * 4);
      stream->replay(*steps);
      stream->copy(out.data(), d, n * 4);
    });
    auto g = whole();
    time("B one graph with the copies", [&] { stream->replay(*g); });
  }
  return 0;
}
