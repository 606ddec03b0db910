// Probe (not ferry): the pool's closed loop with no computation, to see what
// the host's part of the loop costs and whether a watcher that keeps several
// doorbell polls in flight shortens it, and whether doorbells in
// write-combined memory, or rung with non-temporal stores, do.
// closed-loop-polls-h100.txt is the first version's output (cached doorbells
// only, 1-4 rounds of polls, depths 4 and 6); closed-loop-doorbells-h100.txt
// is this version's.
//  - workers: teams dealt every chunk's quads (as ferry's pool), each waits
//    for the chunk's release in device memory;
//  - watcher: polls the doorbells of the next `depth` chunks in mapped host
//    memory; `inflight` rounds of polls are kept in flight, one issued every
//    `gap_ns`; publishes the released count in device memory;
//  - flagger: waits for every worker past a chunk, fences at system scope,
//    raises the slot's done flag in mapped memory;
//  - the host keeps `depth` chunks in flight: it rings chunk c + depth's
//    doorbell once chunk c's flag is seen, and times each chunk.
// nvcc -O3 -std=c++20 -arch=sm_90 closed_loop.cu -o closed_loop
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

__device__ inline void move(const uint4* in, uint4* out, u64 from, u64 to, u64 lanes) {
  constexpr int U = 4;
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
  int workers, depth, inflight;
  u64 gap_ns;
  const u64* doorbells;  // mapped
  u64* done;             // mapped
  u64* released;         // device
  u64* past;             // device, per worker
  u64* failed;           // mapped
};

constexpr int max_depth = 8;

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
      switch (p.inflight) {
        case 1: watch<1>(p); break;
        case 2: watch<2>(p); break;
        case 4: watch<4>(p); break;
      }
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
    move(p.in, p.out, lo + (lane + lanes - lo % lanes) % lanes, hi, lanes);
    __syncthreads();
    if (threadIdx.x == 0) st_rel_gpu(p.past + blockIdx.x * stride, c + 1);
  }
}

int main() {
  const u64 bytes = 64ull << 20, n = bytes / 16;
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
  printf("  doorbells  chunk KiB  depth  polls in flight  gap us   median us  p90 us   GB/s    check\n");
  const char* modes[] = {"cached", "wc", "nt"};
  for (u64 chunk : {128ull << 10, 256ull << 10})
  for (int mode : {0, 1, 2}) {
    u64* bells = mode == 1 ? bells_wc : bells_cached;
    u64* dbells = mode == 1 ? dbells_wc : dbells_cached;
    for (int depth : {4}) {
      for (auto [inflight, gap] : {std::pair{1, 0ull}, {2, 500ull}, {4, 500ull}}) {
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
          Loop p{din, dout, n, chunk / 16, (n + chunk / 16 - 1) / (chunk / 16), 16, depth, inflight, gap,
                 dbells, dflags, dev, dev + stride, dflags + 32 * stride};
          closed_loop<<<18, team, 0, s>>>(p);
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
          printf("  %-9s  %9llu  %5d  %15d  %6.2f   FAILED: timed out\n", modes[mode], (unsigned long long)(chunk >> 10), depth, inflight,
                 gap / 1e3);
          continue;
        }
        std::sort(lat.begin(), lat.end());
        gbs_best = std::max(gbs[1], gbs[2]);
        printf("  %-9s  %9llu  %5d  %15d  %6.2f   %8.2f  %7.2f  %6.2f-%5.2f  %s\n", modes[mode], (unsigned long long)(chunk >> 10), depth,
               inflight, gap / 1e3, lat[lat.size() / 2], lat[lat.size() * 9 / 10], std::min(gbs[1], gbs[2]), gbs_best,
               bad ? "FAILED" : "PASSED");
      }
    }
  }
  return 0;
}
