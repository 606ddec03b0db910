// A stand-alone experiment (not part of ferry): where a 4 KiB chunk's time
// goes in a persistent kernel that reads mapped host memory and writes it,
// and whether it comes back sooner when its result words carry the chunk's
// number (as NCCL's LL protocol does), so that the host polls the result
// itself instead of a flag raised after a system-scope fence.
//
//   nvcc -O2 -arch=sm_90 -o ll-output ll-output.cu && ./ll-output
//
// One block of 256 threads stays resident. For each chunk c the host stores c
// into a doorbell in mapped memory and times, on its steady clock, until it
// sees the chunk back:
//   echo        thread 0 sees the doorbell and stores c into a done flag
//               (ferry's flag round trip);
//   fence+flag  the block reads 4 KiB of mapped input, computes, writes 4 KiB
//               of mapped output, then thread 0 fences at system scope and
//               raises the flag (ferry's fused design at 4 KiB);
//   flag only   the same without the fence: the flag may overtake the data
//               (unsafe; it measures what the fence costs);
//   tagged      the same, but each 4-byte result goes out in an 8-byte word
//               with c beside it and there is no flag: the host polls until
//               every word carries c, then checks every value;
//   acq fence   fence+flag, with ferry's wait: a system-scope acquire fence
//               once the doorbell is seen, and the flag a release store;
//   acq load    the same with the fence replaced by one acquire load of the
//               doorbell once a relaxed poll has seen it;
//   fresh       fence+flag, each chunk at its own 4 KiB of 256 MiB of input
//               and output (as a stream's chunks are), not the same 4 KiB;
//   plain       fresh with plain loads and stores (ferry's move_slice) where
//               the others load with __ldcv and store with __stwt (write
//               through, so no result waits in L2 for the fence);
//   dirty       fresh, with the chunk's input written and its output poisoned
//               by the host just before its doorbell (untimed), so both are
//               in the host core's caches when the GPU reaches for them;
//   link echo   echo as link's flag round trip does it: an acquire load and
//               a clock read per poll, the reply a system-scope release store;
//   d+relaxed   dirty, its doorbell polled with relaxed system-scope loads;
//   d+acquire   dirty, with the acquire fence once the doorbell is seen;
//   d+release   dirty, its flag a system-scope release store (no fence before);
//   ferry-like  dirty, with ferry's memory operations: relaxed system-scope
//               polls, the acquire fence once the doorbell is seen, plain
//               loads and stores, and the flag a system-scope release store.
//
// "data cycles" is the SM's clock from the doorbell seen (and any fence after
// it) to every result stored and the block met again: the chunk's own path.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t e = (call);                                                                       \
    if (e != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(3);                                                                               \
    }                                                                                             \
  } while (0)

constexpr int threads = 256;
constexpr int words = 1024;  // 4 KiB of 32-bit input words, four a thread
enum Mode { echo, fence_flag, flag_only, tagged, acq_fence, acq_load, fresh, plain, dirty, d_relaxed, d_acquire, d_release,
            ferry_like, link_echo };
const char* names[] = {"echo",  "fence+flag", "flag only", "tagged",    "acq fence",  "acq load",  "fresh",
                       "plain", "dirty",      "d+relaxed", "d+acquire", "d+release", "ferry-like", "link echo"};
constexpr std::uint64_t fresh_chunks = (256u << 20) / (words * 4);

__device__ std::uint32_t work(std::uint32_t x) { return x * 2654435761u + 12345u; }

__global__ void chunks(Mode mode, int count, const volatile std::uint64_t* doorbell, volatile std::uint64_t* done,
                       const uint4* in, uint4* out, std::uint64_t* out_tagged, long long* cycles) {
  for (int c = 1; c <= count; ++c) {
    long long seen = 0;
    if (threadIdx.x == 0) {
      long long spins = 0;
      if (mode == link_echo) {
        cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> bell(*const_cast<std::uint64_t*>(doorbell));
        std::uint64_t now;
        for (;;) {
          const std::uint64_t value = bell.load(cuda::memory_order_acquire);
          asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
          if (value >= static_cast<std::uint64_t>(c)) break;
          if (++spins > (1ll << 34)) asm volatile("trap;");
        }
        cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*const_cast<std::uint64_t*>(done))
            .store(c + (now & 0), cuda::memory_order_release);
      }
      // One poll loop a mode: a second loop would read the doorbell once more, a PCIe round trip.
      if (mode == ferry_like || mode == d_relaxed) {
        cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> bell(*const_cast<std::uint64_t*>(doorbell));
        while (bell.load(cuda::memory_order_relaxed) < static_cast<std::uint64_t>(c))
          if (++spins > (1ll << 34)) asm volatile("trap;");
      } else if (mode != link_echo) {
        while (*doorbell < static_cast<std::uint64_t>(c))
          if (++spins > (1ll << 34)) asm volatile("trap;");  // the host is gone: no hang
      }
      if (mode == acq_fence || mode == ferry_like || mode == d_acquire) cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
      if (mode == acq_load)
        (void)cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*const_cast<std::uint64_t*>(doorbell))
            .load(cuda::memory_order_acquire);
      seen = clock64();
    }
    __syncthreads();
    if (mode == link_echo) {
      __syncthreads();
      continue;
    }
    if (mode == echo) {
      if (threadIdx.x == 0) *done = c;
      __syncthreads();
      continue;
    }
    const std::uint64_t at = mode >= fresh && mode <= ferry_like ? (c % fresh_chunks) * (threads) : 0;  // in uint4s
    const bool plain_access = mode == plain || mode == ferry_like;
    const uint4 v = plain_access ? in[at + threadIdx.x] : __ldcv(in + at + threadIdx.x);  // across PCIe
    const std::uint32_t r[4] = {work(v.x) + c, work(v.y) + c, work(v.z) + c, work(v.w) + c};
    if (mode == tagged) {
      // An 8-byte store reaches the host whole: the tag cannot arrive without its value.
      for (int k = 0; k < 4; ++k)
        reinterpret_cast<volatile std::uint64_t*>(out_tagged)[4 * threadIdx.x + k] =
            static_cast<std::uint64_t>(c) << 32 | r[k];
    } else {
      if (plain_access) out[at + threadIdx.x] = uint4{r[0], r[1], r[2], r[3]};
      else __stwt(out + at + threadIdx.x, uint4{r[0], r[1], r[2], r[3]});
    }
    __syncthreads();
    if (threadIdx.x == 0) cycles[c] = clock64() - seen;  // the doorbell seen -> every result stored
    if (mode != tagged && threadIdx.x == 0) {
      if (mode == acq_fence || mode == acq_load || mode == ferry_like || mode == d_release) {
        cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*const_cast<std::uint64_t*>(done))
            .store(c, cuda::memory_order_release);
      } else {
        if (mode == fence_flag || mode == fresh || mode == plain || mode == dirty || mode == d_relaxed || mode == d_acquire)
          __threadfence_system();
        *done = c;
      }
    }
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 20000, warmup = 1000;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  std::uint64_t *flags, *d_flags;  // doorbell and done, 128 bytes apart
  std::uint32_t *in, *out;
  uint4 *d_in, *d_out;
  std::uint64_t *tag_out, *d_tag_out;
  long long* d_cycles;
  CHECK(cudaHostAlloc(&flags, 256, cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&in, fresh_chunks * words * 4, cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&out, fresh_chunks * words * 4, cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&tag_out, words * 8, cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_flags), flags, 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_in), in, 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_out), out, 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_tag_out), tag_out, 0));
  for (std::uint64_t i = 0; i < fresh_chunks * words; ++i) in[i] = 0x9E3779B9u * (i % words + 1);
  CHECK(cudaMalloc(&d_cycles, (warmup + count + 1) * sizeof(long long)));
  std::vector<long long> cycles(warmup + count + 1);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int device = 0;
  cudaDeviceProp prop{};
  CHECK(cudaGetDevice(&device));
  CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("%s, %d chunks of 4 KiB after %d warm-up, host steady clock per chunk\n", prop.name, count, warmup);
  std::printf("%-11s %9s %9s %9s %9s %13s  %s\n", "mode", "median us", "p10 us", "p90 us", "x echo", "data cycles", "check");

  double echo_median = 0;
  for (Mode mode : {echo, fence_flag, flag_only, tagged, acq_fence, acq_load, fresh, plain, dirty, d_relaxed, d_acquire,
                    d_release, ferry_like, link_echo}) {
    volatile std::uint64_t* doorbell = flags;
    volatile std::uint64_t* done = flags + 16;
    *doorbell = 0;
    *done = 0;
    std::fill(out, out + fresh_chunks * words, 0u);
    std::fill(tag_out, tag_out + words, std::uint64_t{0});
    const int total = warmup + count;
    chunks<<<1, threads, 0, stream>>>(mode, total, d_flags, d_flags + 16, d_in, d_out, d_tag_out, d_cycles);
    CHECK(cudaGetLastError());
    std::vector<double> us;
    long wrong = 0;
    for (int c = 1; c <= total; ++c) {
      if (mode >= dirty && mode <= ferry_like) {
        const std::uint64_t at = (c % fresh_chunks) * words;
        for (int i = 0; i < words; ++i) in[at + i] = 0x9E3779B9u * (i + 1);
        std::fill(out + at, out + at + words, 0xA5A5A5A5u);
      }
      const auto start = std::chrono::steady_clock::now();
      __atomic_store_n(const_cast<std::uint64_t*>(doorbell), static_cast<std::uint64_t>(c), __ATOMIC_RELEASE);
      if (mode == tagged) {
        for (int i = 0; i < words;) {  // every word must carry c
          if (__atomic_load_n(tag_out + i, __ATOMIC_ACQUIRE) >> 32 == static_cast<std::uint64_t>(c)) ++i;
          else if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) { std::fprintf(stderr, "timeout\n"); return 3; }
        }
      } else {
        while (__atomic_load_n(const_cast<std::uint64_t*>(done), __ATOMIC_ACQUIRE) < static_cast<std::uint64_t>(c))
          if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) { std::fprintf(stderr, "timeout\n"); return 3; }
      }
      const auto end = std::chrono::steady_clock::now();
      if (c > warmup) us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
      if (mode != echo && mode != link_echo) {  // every value of this chunk, as the host reads it once it has seen the chunk back
        for (int i = 0; i < words; ++i) {
          const std::uint32_t expected = in[i] * 2654435761u + 12345u + c;
          const std::uint64_t at =
              mode >= fresh && mode <= ferry_like ? (c % fresh_chunks) * words : 0;
          const std::uint32_t got = mode == tagged ? static_cast<std::uint32_t>(tag_out[i]) : out[at + i];
          wrong += got != expected;
        }
      }
    }
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(cycles.data(), d_cycles, cycles.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    std::vector<long long> path(cycles.begin() + warmup + 1, cycles.end());
    std::sort(path.begin(), path.end());
    std::sort(us.begin(), us.end());
    const double median = us[us.size() / 2];
    if (mode == echo) echo_median = median;
    std::printf("%-11s %9.2f %9.2f %9.2f %9.2f %13lld  %s\n", names[mode], median, us[us.size() / 10], us[us.size() * 9 / 10],
                median / echo_median, mode == echo || mode == link_echo ? 0ll : path[path.size() / 2],
                mode == echo ? "-" : wrong == 0 ? "every word right" : "WRONG WORDS");
    if (wrong) std::printf("  %ld wrong words (flag only may show the flag overtaking the data)\n", wrong);
  }
  return 0;
}
