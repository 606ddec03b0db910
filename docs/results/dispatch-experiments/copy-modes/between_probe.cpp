// Throwaway: why is +fused fast in context_probe's loop with nothing between runs (53-56 us) and slow in
// `ferry run` with its outputs checked after the runs (63-66 us)? The differences: events recorded around each run
// in the probe, and ferry copying each run's output aside. Blocks of 300, +fused (copy in, steps' graph, copy out,
// sync) after the same prepare as SortBench; host clock. 2 x 2: events or not, the output copied aside or not; and
// ferry's check between runs, with events.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
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
int main() {
  auto backend = make_backend("cuda");
  auto stream = backend->make_stream(0);
  const std::uint64_t n = 32768, tile = 2048;
  Buffer dev = backend->allocate_device(0, n * 4);
  Buffer in = backend->allocate_host(MemoryKind::pinned, n * 4), out = backend->allocate_host(MemoryKind::pinned, n * 4);
  auto* d = dev.as<std::uint32_t>();
  auto a = backend->make_event(0), b = backend->make_event(0);
  stream->begin_capture();
  enqueue_fused_sort(*stream, d, d, d, n, tile, true);
  auto steps = stream->end_capture();
  std::uint64_t draw = 0;
  std::vector<std::uint32_t> aside(n * 330);
  int wrong = 0;
  auto time = [&](const char* what, bool events, int between /*0 nothing, 1 copy aside, 2 ferry's check*/) {
    std::vector<double> host;
    for (int i = 0; i < 330; ++i) {
      fill_keys(in.as<std::uint32_t>(), n, ++draw);
      poison_on_host(out.data(), n * 4);
      stream->fill(d, 0xA5, n * 4);
      stream->synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      if (events) stream->record(*a);
      stream->copy(d, in.data(), n * 4);
      stream->replay(*steps);
      stream->copy(out.data(), d, n * 4);
      if (events) stream->record(*b);
      stream->synchronize();
      const double h = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      if (between == 1) std::memcpy(aside.data() + i * n, out.data(), n * 4);
      if (between == 2) {
        const auto expected = sorted_reference(in.as<const std::uint32_t>(), n);
        wrong += !std::equal(expected.begin(), expected.end(), out.as<const std::uint32_t>());
      }
      if (i >= 30) host.push_back(h);
    }
    std::sort(host.begin(), host.end());
    std::printf("%-44s host %6.2f (p10 %6.2f p90 %6.2f)\n", what, host[150], host[30], host[270]);
  };
  for (int block = 0; block < 3; ++block) {
    std::printf("-- block %d\n", block);
    time("events, nothing between", true, 0);
    time("no events, nothing between", false, 0);
    time("events, output copied aside", true, 1);
    time("no events, output copied aside (as the patch)", false, 1);
    time("events, ferry's check between", true, 2);
    time("no events, ferry's check between (as ferry)", false, 2);
  }
  std::printf("wrong outputs %d\n", wrong);
  return 0;
}
