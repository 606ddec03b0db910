// Probe (not ferry): closed_loop.cu's loop (cached doorbells, one round of
// polls in flight) over a grid of its shape: the quads each worker thread
// reads before it writes them (move<U>) and the number of workers, at several
// chunk sizes and depths. The first argument is the stream in MiB (default 64).
// closed-loop-grid-h100.txt is the first version's output (U 1, 2, 4 x
// workers 8, 16, 32 x chunks 64-512 KiB x depths 2-12 on 64 MiB);
// run2-probe-h100.txt is this version's. Its title line still says 16
// workers and 64 MiB; the columns and the "stream of" line are right.
// nvcc -O3 -std=c++20 -arch=sm_90 closed_loop_grid.cu -o closed_loop_grid
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <immintrin.h>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e = (x);                                                        \
    if (e) {                                                                    \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));  \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

using u64 = std::uint64_t;
constexpr int team = 256;
constexpr int stride = 16;  // words between counters (128 B)
constexpr u64 timeout_ns = 2'000'000'000ull;

__device__ inline u64 now_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ inline u64 ld_sys(const u64* p) {
  return cuda::atomic_ref<u64, cuda::thread_scope_system>(*const_cast<u64*>(p)).load(cuda::memory_order_relaxed);
}
__device__ inline void st_sys(u64* p, u64 v) {
  cuda::atomic_ref<u64, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_relaxed);
}
__device__ inline u64 ld_gpu(const u64* p) {
  return cuda::atomic_ref<u64, cuda::thread_scope_device>(*const_cast<u64*>(p)).load(cuda::memory_order_relaxed);
}
__device__ inline void st_rel_gpu(u64* p, u64 v) {
  cuda::atomic_ref<u64, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_release);
}

template <int U>
__device__ inline void move(const uint4* in, uint4* out, u64 from, u64 to, u64 lanes) {
  for (u64 g = from; g < to; g += U * lanes) {
    uint4 h[U];
#pragma unroll
    for (int k = 0; k < U; ++k)
      if (g + k * lanes < to) h[k] = in[g + k * lanes];
#pragma unroll
    for (int k = 0; k < U; ++k)
      if (g + k * lanes < to) {
        uint4 v = h[k];
        v.x = v.x * 2654435761u + 1;
        out[g + k * lanes] = v;
      }
  }
}

struct Loop {
  const uint4* in;
  uint4* out;
  u64 n, chunk_quads, chunks;
  int workers, depth, inflight, unroll;
  u64 gap_ns;
  const u64* doorbells;  // mapped
  u64* done;             // mapped
  u64* released;         // device
  u64* past;             // device, per worker
  u64* failed;           // mapped
};

constexpr int max_depth = 16;

// Polls are issued in rounds: each round loads the doorbells of chunks
// c .. c + depth - 1. With R rounds in flight the watcher looks at the
// oldest round's values only after R - 1 newer rounds were issued.
template <int R>
__device__ void watch(const Loop& p) {
  u64 base[R], bell[R][max_depth];
  u64 c = 0, since = now_ns();
  auto issue = [&](int r) {
    base[r] = c;
#pragma unroll
    for (int k = 0; k < max_depth; ++k)
      bell[r][k] = k < p.depth && c + k < p.chunks ? ld_sys(p.doorbells + ((c + k) % p.depth) * stride) : 0;
  };
#pragma unroll
  for (int r = 0; r < R; ++r) {
    issue(r);
    if (R > 1) __nanosleep((unsigned)p.gap_ns);
  }
  for (int oldest = 0; c < p.chunks; oldest = (oldest + 1) % R) {
    u64 now = c;
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (r == oldest) {
#pragma unroll
        for (int k = 0; k < max_depth; ++k)
          if (k < p.depth && base[r] + k == now && bell[r][k] > now) now = now + 1;  // chunk base+k was rung
      }
    if (now > c) {
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
      st_rel_gpu(p.released, now);
      c = now;
      since = now_ns();
    } else if (now_ns() - since > timeout_ns) {
      st_sys(p.failed, 1);
      st_rel_gpu(p.released, ~0ull);
      return;
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (r == oldest) issue(r);
    if (R > 1) __nanosleep((unsigned)p.gap_ns);
  }
}

__global__ void closed_loop(Loop p) {
  if (blockIdx.x == (unsigned)p.workers) {
    if (threadIdx.x == 0) {
      watch<1>(p);
    }
    return;
  }
  if (blockIdx.x == (unsigned)p.workers + 1) {
    if (threadIdx.x != 0) return;
    u64 since = now_ns();
    for (u64 c = 0; c < p.chunks;) {
      u64 least = p.chunks;
      for (int w = 0; w < p.workers; ++w) {
        const u64 s = ld_gpu(p.past + w * stride);
        least = s < least ? s : least;
      }
      if (least > c) {
        cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
        cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
        for (; c < least; ++c) st_sys(p.done + (c % p.depth) * stride, c + 1);
        since = now_ns();
      } else if (ld_gpu(p.released) == ~0ull || now_ns() - since > timeout_ns) {
        st_sys(p.failed, 2);
        return;
      }
    }
    return;
  }
  const u64 lanes = (u64)p.workers * blockDim.x;
  const u64 lane = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ int go;
  for (u64 c = 0; c < p.chunks; ++c) {
    if (threadIdx.x == 0) {
      u64 r;
      while ((r = ld_gpu(p.released)) <= c) {
      }
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
      go = r != ~0ull;
    }
    __syncthreads();
    if (!go) return;
    const u64 lo = c * p.chunk_quads, hi = lo + p.chunk_quads < p.n ? lo + p.chunk_quads : p.n;
    const u64 first = lo + (lane + lanes - lo % lanes) % lanes;
    switch (p.unroll) {
      case 1: move<1>(p.in, p.out, first, hi, lanes); break;
      case 2: move<2>(p.in, p.out, first, hi, lanes); break;
      case 4: move<4>(p.in, p.out, first, hi, lanes); break;
      default: move<8>(p.in, p.out, first, hi, lanes); break;
    }
    __syncthreads();
    if (threadIdx.x == 0) st_rel_gpu(p.past + blockIdx.x * stride, c + 1);
  }
}

int main(int argc, char** argv) {
  const u64 bytes = (argc > 1 ? strtoull(argv[1], nullptr, 10) : 64ull) << 20, n = bytes / 16;
  printf("stream of %llu MiB\n", (unsigned long long)(bytes >> 20));
  uint4 *hin, *hout;
  CK(cudaHostAlloc(&hin, bytes, cudaHostAllocMapped));
  CK(cudaHostAlloc(&hout, bytes, cudaHostAllocMapped));
  for (u64 i = 0; i < bytes / 4; ++i) reinterpret_cast<unsigned*>(hin)[i] = (unsigned)(i * 2654435761u + 7);
  u64 *bells_cached, *bells_wc, *flags;
  CK(cudaHostAlloc(&bells_cached, 8192, cudaHostAllocMapped));
  CK(cudaHostAlloc(&bells_wc, 8192, cudaHostAllocMapped | cudaHostAllocWriteCombined));
  CK(cudaHostAlloc(&flags, 16384, cudaHostAllocMapped));
  uint4 *din, *dout;
  u64 *dbells_cached, *dbells_wc, *dflags;
  CK(cudaHostGetDevicePointer(&din, hin, 0));
  CK(cudaHostGetDevicePointer(&dout, hout, 0));
  CK(cudaHostGetDevicePointer(&dbells_cached, bells_cached, 0));
  CK(cudaHostGetDevicePointer(&dbells_wc, bells_wc, 0));
  CK(cudaHostGetDevicePointer(&dflags, flags, 0));
  u64* dev;
  CK(cudaMalloc(&dev, 1 << 16));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  auto check = [&] {
    const unsigned* i4 = reinterpret_cast<const unsigned*>(hin);
    const unsigned* o4 = reinterpret_cast<const unsigned*>(hout);
    u64 bad = 0;
    for (u64 q = 0; q < n; ++q)
      if (o4[4 * q] != i4[4 * q] * 2654435761u + 1 || o4[4 * q + 1] != i4[4 * q + 1] ||
          o4[4 * q + 2] != i4[4 * q + 2] || o4[4 * q + 3] != i4[4 * q + 3])
        ++bad;
    return bad;
  };

  printf("== pool's closed loop without computation: 16 workers, 64 MiB a pass; host steady clock\n");
  printf("  unroll  workers  chunk KiB  depth   median us  p90 us   GB/s         check\n");
  u64* bells = bells_cached;
  u64* dbells = dbells_cached;
  const int mode = 0, inflight = 1;
  const u64 gap = 0;
  for (auto [unroll, workers] : {std::pair{1, 32}, {2, 16}, {4, 16}})
  for (u64 chunk : {128ull << 10, 256ull << 10, 512ull << 10}) {
    for (int depth : {3, 4, 6}) {
      {
        std::vector<double> lat;
        double gbs_best = 0, gbs[3];
        u64 bad = 0;
        bool failed = false;
        for (int pass = 0; pass < 3; ++pass) {
          memset(hout, 0xEE, bytes);
          memset(bells, 0, 8192);
          memset(flags, 0, 16384);
          CK(cudaMemsetAsync(dev, 0, 1 << 16, s));
          CK(cudaStreamSynchronize(s));
          Loop p{din, dout, n, chunk / 16, (n + chunk / 16 - 1) / (chunk / 16), workers, depth, inflight, unroll, gap,
                 dbells, dflags, dev, dev + stride, dflags + 32 * stride};
          closed_loop<<<workers + 2, team, 0, s>>>(p);
          CK(cudaGetLastError());
          auto ring = [&](u64 c) {
            u64* bell = bells + (c % depth) * stride;
            if (mode == 0) {
              std::atomic_ref<u64>(*bell).store(c + 1, std::memory_order_release);
            } else if (mode == 1) {
              *reinterpret_cast<volatile u64*>(bell) = c + 1;
              _mm_sfence();
            } else {
              _mm_stream_si64(reinterpret_cast<long long*>(bell), (long long)(c + 1));
              _mm_sfence();
            }
          };
          std::vector<std::chrono::steady_clock::time_point> start(p.chunks);
          const auto t0 = std::chrono::steady_clock::now();
          for (u64 c = 0; c < (u64)depth && c < p.chunks; ++c) {
            start[c] = std::chrono::steady_clock::now();
            ring(c);
          }
          for (u64 c = 0; c < p.chunks && !failed; ++c) {
            u64 spins = 0;
            while (std::atomic_ref<u64>(flags[(c % depth) * stride]).load(std::memory_order_acquire) < c + 1) {
              if (++spins % 4096 == 0 &&
                  (std::atomic_ref<u64>(flags[32 * stride]).load() ||
                   std::chrono::steady_clock::now() - t0 > std::chrono::seconds(5))) {
                failed = true;
                break;
              }
            }
            const auto t = std::chrono::steady_clock::now();
            if (pass > 0 && c >= 64) lat.push_back(std::chrono::duration<double, std::micro>(t - start[c]).count());
            if (c + depth < p.chunks) {
              start[c + depth] = std::chrono::steady_clock::now();
              ring(c + depth);
            }
          }
          const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          CK(cudaStreamSynchronize(s));
          gbs[pass] = bytes / secs / 1e9;
          bad += check();
        }
        if (failed) {
          printf("  %6d  %7d  %9llu  %5d   FAILED: timed out\n", unroll, workers, (unsigned long long)(chunk >> 10), depth);
          continue;
        }
        std::sort(lat.begin(), lat.end());
        gbs_best = std::max(gbs[1], gbs[2]);
        printf("  %6d  %7d  %9llu  %5d   %8.2f  %7.2f  %6.2f-%5.2f  %s\n", unroll, workers, (unsigned long long)(chunk >> 10), depth,
               lat[lat.size() / 2], lat[lat.size() * 9 / 10], std::min(gbs[1], gbs[2]), gbs_best,
               bad ? "FAILED" : "PASSED");
      }
    }
  }
  return 0;
}
