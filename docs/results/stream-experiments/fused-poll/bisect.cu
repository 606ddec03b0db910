// Bisect fused's 4 KiB depth-1 round trip against the minimal echo.
// One team of 256 threads, persistent: thread 0 polls a doorbell in mapped host memory,
// the team reads 4 KiB of mapped input (sequential chunks through a 1 GiB buffer, or one
// 4 KiB chunk again and again), writes 4 KiB of mapped output, thread 0 raises the reply.
// Axes: poll (volatile | relaxed.sys + fence acquire.sys [ferry] | ld.acquire.sys),
//       reply (membar.sys + volatile store | st.release.sys [ferry]),
//       buffers (never touched by the host | filled and poisoned by host threads [ferry]),
//       host wait (plain spin | reading the clock and a failure word each poll [ferry]).
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#define CK(x)                                                     \
  do {                                                            \
    cudaError_t e = (x);                                          \
    if (e != cudaSuccess) {                                       \
      printf("%s: %s\n", #x, cudaGetErrorString(e));              \
      return 1;                                                   \
    }                                                             \
  } while (0)

using u64 = unsigned long long;
struct alignas(16) Q {
  u64 a, b;
};

template <int Poll>
__device__ __forceinline__ u64 poll_once(u64* bell) {
  if constexpr (Poll == 0) return *(volatile u64*)bell;
  else if constexpr (Poll == 1)
    return cuda::atomic_ref<u64, cuda::thread_scope_system>(*bell).load(cuda::memory_order_relaxed);
  else return cuda::atomic_ref<u64, cuda::thread_scope_system>(*bell).load(cuda::memory_order_acquire);
}

template <int Poll, int Reply>
__global__ void echo(u64* bell, u64* reply, const Q* in, Q* out, int quads, long long span_chunks) {
  __shared__ u64 seen;
  u64 last = 0;
  for (;;) {
    if (threadIdx.x == 0) {
      u64 v;
      do { v = poll_once<Poll>(bell); } while (v == last);
      if constexpr (Poll == 1) cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
      seen = v;
    }
    __syncthreads();
    const u64 v = seen;
    last = v;
    if (v == ~0ull) return;
    const long long base = (long long)(v % (u64)span_chunks) * quads;
    for (int i = threadIdx.x; i < quads; i += blockDim.x) {
      Q q = in[base + i];
      q.a += v;
      q.b ^= v;
      out[base + i] = q;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      if constexpr (Reply == 0) {
        __threadfence_system();
        *(volatile u64*)reply = v;
      } else {
        cuda::atomic_ref<u64, cuda::thread_scope_system>(*reply).store(v, cuda::memory_order_release);
      }
    }
  }
}

using Kernel = void (*)(u64*, u64*, const Q*, Q*, int, long long);
static Kernel kernel_of(int poll, int reply) {
  const Kernel k[3][2] = {{echo<0, 0>, echo<0, 1>}, {echo<1, 0>, echo<1, 1>}, {echo<2, 0>, echo<2, 1>}};
  return k[poll][reply];
}

static void host_fill(void* p, size_t bytes, unsigned char v) {
  std::vector<std::thread> t;
  const int n = 8;
  for (int k = 0; k < n; ++k)
    t.emplace_back([=] { memset((char*)p + bytes / n * k, v + k, bytes / n); });
  for (auto& x : t) x.join();
}

int main() {
  CK(cudaSetDeviceFlags(cudaDeviceMapHost));
  u64* flags;
  CK(cudaHostAlloc(&flags, 4096, cudaHostAllocMapped));
  const size_t big = 1ull << 30;
  Q *in, *out;
  CK(cudaHostAlloc(&in, big, cudaHostAllocMapped));
  CK(cudaHostAlloc(&out, big, cudaHostAllocMapped));
  u64* dflags;
  Q *din, *dout;
  CK(cudaHostGetDevicePointer(&dflags, flags, 0));
  CK(cudaHostGetDevicePointer(&din, in, 0));
  CK(cudaHostGetDevicePointer(&dout, out, 0));
  const char* polls[] = {"volatile", "relaxed+fence", "acquire"};
  const char* replies[] = {"membar+volatile", "st.release"};
  const int quads = 4096 / 16;
  const int iterations = 20000, skip = 2000;
  for (int touched = 0; touched < 2; ++touched) {
    if (touched) {
      host_fill(in, big, 0x5a);
      host_fill(out, big, 0xa5);
    }
    for (long long span_chunks : {1ll, (long long)(big / 4096)}) {
      for (int poll = 0; poll < 3; ++poll) {
        for (int reply = 0; reply < 2; ++reply) {
          for (int ferry_host = 0; ferry_host < 2; ++ferry_host) {
            if (ferry_host && !(poll == 1 && reply == 1)) continue;
            volatile u64* bell = flags;
            volatile u64* rep = flags + 16;
            volatile u64* failure = flags + 32;
            *bell = 0;
            *rep = 0;
            *failure = 0;
            cudaStream_t s;
            CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            kernel_of(poll, reply)<<<1, 256, 0, s>>>(dflags, dflags + 16, din, dout, quads, span_chunks);
            CK(cudaGetLastError());
            std::vector<double> t;
            t.reserve(iterations);
            // Sequential chunks from a fresh start each configuration: chunk v is at v % span.
            static u64 next = 1;
            for (int i = 0; i < iterations; ++i, ++next) {
              auto t0 = std::chrono::steady_clock::now();
              __atomic_store_n((u64*)bell, next, __ATOMIC_RELEASE);
              auto deadline = t0 + std::chrono::seconds(5);
              if (ferry_host) {
                if (__atomic_load_n((u64*)rep, __ATOMIC_ACQUIRE) != next) {
                  const auto start = std::chrono::steady_clock::now();
                  while (__atomic_load_n((u64*)rep, __ATOMIC_ACQUIRE) != next) {
                    if (__atomic_load_n((u64*)failure, __ATOMIC_ACQUIRE) != 0 ||
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > 5) {
                      printf("timeout\n");
                      return 1;
                    }
                  }
                }
              } else {
                while (*rep != next)
                  if (std::chrono::steady_clock::now() > deadline) {
                    printf("timeout\n");
                    return 1;
                  }
              }
              auto t1 = std::chrono::steady_clock::now();
              if (i >= skip) t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            }
            *bell = ~0ull;
            CK(cudaStreamSynchronize(s));
            CK(cudaStreamDestroy(s));
            std::sort(t.begin(), t.end());
            printf("%-9s %-6s poll %-14s reply %-16s host %-6s median %.3f us  p10 %.3f  p90 %.3f\n",
                   touched ? "host-made" : "untouched", span_chunks == 1 ? "same" : "fresh", polls[poll],
                   replies[reply], ferry_host ? "ferry" : "plain", t[t.size() / 2], t[t.size() / 10],
                   t[t.size() * 9 / 10]);
            fflush(stdout);
          }
        }
      }
    }
  }
  return 0;
}
