// Throwaway: what +fused's copies cost around dependent work, 32768 keys (128 KiB) through pinned memory, one
// process, blocks of 300 alternating: host clock and CUDA events around the same work.
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
#include "bench/link/link_kernels.hpp"
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
  auto capture = [&](const std::function<void()>& work) {
    stream->begin_capture();
    work();
    return stream->end_capture();
  };
  auto steps = capture([&] { enqueue_fused_sort(*stream, d, d, d, n, tile, true); });
  auto one_empty = capture([&] { link::launch_empty(*stream); });
  auto ten_empty = capture([&] { for (int i = 0; i < 10; ++i) link::launch_empty(*stream, i > 0); });
  auto time = [&](const char* what, const std::function<void()>& work) {
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
    std::printf("%-44s host %6.2f us (p10 %6.2f, p90 %6.2f)  device %6.2f us (p10 %6.2f, p90 %6.2f)\n", what, host[150],
                host[30], host[270], device[150], device[30], device[270]);
  };
  auto h2d = [&] { stream->copy(d, in.data(), n * 4); };
  auto d2h = [&] { stream->copy(out.data(), d, n * 4); };
  for (int block = 0; block < 3; ++block) {
    time("copies: H2D, D2H", [&] { h2d(); d2h(); });
    time("H2D alone", [&] { h2d(); });
    time("D2H alone", [&] { d2h(); });
    time("H2D, empty kernel, D2H", [&] { h2d(); link::launch_empty(*stream); d2h(); });
    time("H2D, graph of 1 empty, D2H", [&] { h2d(); stream->replay(*one_empty); d2h(); });
    time("H2D, graph of 10 empty (programmatic), D2H", [&] { h2d(); stream->replay(*ten_empty); d2h(); });
    time("graph of the sort's steps alone", [&] { stream->replay(*steps); });
    time("H2D, graph of the sort's steps, D2H (+fused)", [&] { h2d(); stream->replay(*steps); d2h(); });
  }
  return 0;
}
