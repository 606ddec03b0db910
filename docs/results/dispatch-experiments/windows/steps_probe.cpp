// Throwaway: device time of subsets of +fused's steps, events around 200 back-to-back graph replays.
#include <cstdio>
#include <vector>
#include <random>
#include <algorithm>
#include "backend/select.hpp"
#include "backend/buffer.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/fused_sort.hpp"
using namespace ferry;
using namespace ferry::dispatch;
int main(int argc, char**) {
  const bool one = argc > 1;  // only tile 1024's first step, few replays: for ncu
  auto backend = make_backend("cuda");
  auto stream = backend->make_stream(0);
  const std::uint64_t n = 32768;
  Buffer dev = backend->allocate_device(0, n * 4);
  Buffer host = backend->allocate_host(MemoryKind::pinned, n * 4);
  std::mt19937 rng(1);
  for (std::uint64_t i = 0; i < n; ++i) host.as<std::uint32_t>()[i] = rng();
  auto* d = dev.as<std::uint32_t>();
  auto a = backend->make_event(0), b = backend->make_event(0);
  for (std::uint64_t tile : {512ull, 1024ull, 2048ull}) {
    if (one && tile != 1024) continue;
    const auto steps = fused_steps(n, tile);
    auto time = [&](const char* what, const std::vector<int>& which, bool programmatic) {
      stream->copy(d, host.data(), n * 4);
      stream->begin_capture();
      for (int i : which) enqueue_fused_step(*stream, d, n, tile, steps[i], programmatic);
      auto graph = stream->end_capture();
      for (int w = 0; w < (one ? 2 : 20); ++w) stream->replay(*graph);
      std::vector<double> us;
      for (int rep = 0; rep < 5; ++rep) {
        stream->record(*a);
        for (int r = 0; r < (one ? 2 : 200); ++r) stream->replay(*graph);
        stream->record(*b);
        b->synchronize();
        us.push_back(b->seconds_since(*a) / 200 * 1e6);
      }
      std::sort(us.begin(), us.end());
      std::printf("tile %5llu %-34s kernels %2zu  %7.2f us per replay (min %7.2f)\n", (unsigned long long)tile, what,
                  which.size(), us[2], us[0]);
    };
    std::vector<int> all, first{0}, first2{0, 0}, first4{0,0,0,0}, longs, onchip, last_onchip, onchip4;
    for (int i = 0; i < (int)steps.size(); ++i) {
      all.push_back(i);
      if (!steps[i].on_chip) longs.push_back(i);
      else if (i > 0) onchip.push_back(i);
    }
    for (int k = 0; k < 4; ++k) onchip4.push_back(onchip.back());
    if (one) { time("first step x1", first, true); continue; }
    time("all steps, pdl", all, true);
    time("all steps, no pdl", all, false);
    time("first step x1", first, true);
    time("first step x2", first2, true);
    time("first step x4", first4, true);
    time("long steps only", longs, true);
    time("on-chip steps (not first) only", onchip, true);
    time("last stage's on-chip step x4", onchip4, true);
  }
  return 0;
}
