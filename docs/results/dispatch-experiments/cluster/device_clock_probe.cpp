// Throwaway: device time of +fused's, +zerocopy's and +cluster's sorts of 32768 keys, 200 back-to-back graph
// replays between events, median of 7; every output checked once.
#include <algorithm>
#include <functional>
#include <cstdio>
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
  Buffer dev = backend->allocate_device(0, n * 4), dev_out = backend->allocate_device(0, n * 4);
  Buffer in = backend->allocate_host(MemoryKind::mapped, n * 4), out = backend->allocate_host(MemoryKind::mapped, n * 4);
  Buffer pinned = backend->allocate_host(MemoryKind::pinned, n * 4);
  std::mt19937 rng(1);
  for (std::uint64_t i = 0; i < n; ++i) in.as<std::uint32_t>()[i] = rng();
  std::vector<std::uint32_t> expected(in.as<std::uint32_t>(), in.as<std::uint32_t>() + n);
  std::sort(expected.begin(), expected.end());
  auto* d = dev.as<std::uint32_t>();
  auto* mi = in.device_view_as<std::uint32_t>();
  auto* mo = out.device_view_as<std::uint32_t>();
  auto a = backend->make_event(0), b = backend->make_event(0);
  // prepare (untimed), then the graph of enqueue replayed; the first replay's output checked.
  auto time = [&](const char* what, const std::function<void()>& prepare, const std::function<void()>& enqueue,
                  const std::function<const std::uint32_t*()>& result) {
    std::fill_n(out.as<std::uint32_t>(), n, 0xA5A5A5A5u);
    stream->fill(d, 0xA5, n * 4);
    stream->fill(dev_out.data(), 0xA5, n * 4);
    prepare();
    stream->begin_capture();
    enqueue();
    auto graph = stream->end_capture();
    stream->replay(*graph);
    stream->synchronize();
    const bool ok = std::equal(expected.begin(), expected.end(), result());
    for (int w = 0; w < 20; ++w) stream->replay(*graph);
    std::vector<double> us;
    for (int rep = 0; rep < 7; ++rep) {
      stream->record(*a);
      for (int i = 0; i < 200; ++i) stream->replay(*graph);
      stream->record(*b);
      b->synchronize();
      us.push_back(b->seconds_since(*a) / 200 * 1e6);
    }
    std::sort(us.begin(), us.end());
    std::printf("%-40s %7.2f us (min %7.2f, max %7.2f)  %s\n", what, us[3], us[0], us[6], ok ? "sorted" : "WRONG");
  };
  auto copied_back = [&](const void* from) {
    stream->copy(pinned.data(), from, n * 4);
    stream->synchronize();
    return pinned.as<const std::uint32_t>();
  };
  auto nothing = [] {};
  auto keys_on_device = [&] { stream->copy(d, in.data(), n * 4); };
  for (int round = 0; round < 2; ++round) {
    time("+fused's 10 kernels, device memory", keys_on_device, [&] { enqueue_fused_sort(*stream, d, d, d, n, tile, true); },
         [&] { return copied_back(d); });
    time("+zerocopy's 10 kernels, mapped in/out", nothing, [&] { enqueue_fused_sort(*stream, mi, d, mo, n, tile, true); },
         [&] { return out.as<const std::uint32_t>(); });
    time("+cluster's kernel, device memory", keys_on_device,
         [&] { enqueue_cluster_sort(*stream, d, dev_out.as<std::uint32_t>(), n, tile); },
         [&] { return copied_back(dev_out.data()); });
    time("+cluster's kernel, mapped in/out", nothing, [&] { enqueue_cluster_sort(*stream, mi, mo, n, tile); },
         [&] { return out.as<const std::uint32_t>(); });
  }
  return 0;
}
