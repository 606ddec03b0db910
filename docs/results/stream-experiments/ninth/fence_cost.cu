// Probe (not ferry): what a system-scope fence, or a poll of host memory,
// costs a stream of mapped reads and writes that other teams keep going, and
// what a device-only chunk pipeline (no host in the loop) moves.
// nvcc -O3 -std=c++20 -arch=sm_90 fence_cost.cu -o fence_cost
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <atomic>
#include <chrono>
#include <thread>

#define CK(x)                                                             \
  do {                                                                    \
    cudaError_t e = (x);                                                  \
    if (e) {                                                              \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)

using u64 = std::uint64_t;
constexpr int team = 256;
constexpr int stride = 16;  // words between counters (128 B)

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
__device__ inline u64 ld_acq_gpu(const u64* p) {
  return cuda::atomic_ref<u64, cuda::thread_scope_device>(*const_cast<u64*>(p)).load(cuda::memory_order_acquire);
}
__device__ inline u64 ld_gpu(const u64* p) {
  return cuda::atomic_ref<u64, cuda::thread_scope_device>(*const_cast<u64*>(p)).load(cuda::memory_order_relaxed);
}
__device__ inline void st_rel_gpu(u64* p, u64 v) {
  cuda::atomic_ref<u64, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_release);
}

// One op of the side thread.
//  0 nothing, 1 fence release gpu, 2 fence release system, 3 fence acquire system,
//  4 poll: relaxed system load of a host word, 5 poll + fence acquire system,
//  6 fence release system + relaxed store of a host flag (the flagger)
__device__ inline u64 side_op(int kind, u64* host_word, u64 i) {
  switch (kind) {
    case 1: cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device); return 0;
    case 2: cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system); return 0;
    case 3: cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system); return 0;
    case 4:
    case 7: return ld_sys(host_word);
    case 5: {
      u64 v = ld_sys(host_word);
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
      return v;
    }
    case 6:
      cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
      st_sys(host_word + stride, i);
      return 0;
  }
  return 0;
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

// Blocks [0, streamers) stream the buffer both ways; the last block's thread 0
// does side ops every gap_ns until they are done.
__global__ void stream_with_side(const uint4* in, uint4* out, u64 n, int streamers, int kind, u64 gap_ns,
                                 u64* finished, u64* ops, u64* host_word) {
  if (blockIdx.x < (unsigned)streamers) {
    const u64 lanes = (u64)streamers * blockDim.x;
    move<4>(in, out, (u64)blockIdx.x * blockDim.x + threadIdx.x, n, lanes);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd((unsigned long long*)finished, 1ull);
    return;
  }
  if (threadIdx.x != 0) return;
  u64 count = 0, sink = 0, next = now_ns();
  while (ld_gpu(finished) < (u64)streamers) {
    if (kind == 0) continue;
    const u64 t = now_ns();
    if (t < next) continue;
    sink += side_op(kind, host_word, count);
    ++count;
    next = t + gap_ns;
  }
  ops[0] = count;
  ops[1] = sink;
}

// A device-only chunk pipeline: `workers` teams are dealt every chunk's quads
// (as ferry's pool); a worker may start chunk c once the flagger has flagged
// chunk c - window; the flagger (last block, thread 0) waits for every worker
// past a chunk, fences (kind 2) or not (kind 0), stores the flag to host memory
// and publishes the flagged count in device memory.
__global__ void pipeline(const uint4* in, uint4* out, u64 n, u64 chunk_quads, int workers, int window, int kind,
                         u64* past, u64* flagged, u64* host_flag) {
  const u64 chunks = (n + chunk_quads - 1) / chunk_quads;
  if (blockIdx.x < (unsigned)workers) {
    const u64 lanes = (u64)workers * blockDim.x;
    const u64 lane = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    for (u64 c = 0; c < chunks; ++c) {
      if (threadIdx.x == 0)
        while (ld_acq_gpu(flagged) + window <= c) {
        }
      __syncthreads();
      const u64 lo = c * chunk_quads, hi = lo + chunk_quads < n ? lo + chunk_quads : n;
      move<4>(in, out, lo + (lane + lanes - lo % lanes) % lanes, hi, lanes);
      __syncthreads();
      if (threadIdx.x == 0) st_rel_gpu(past + blockIdx.x * stride, c + 1);
    }
    return;
  }
  if (threadIdx.x != 0) return;
  for (u64 c = 0; c < chunks;) {
    u64 least = chunks;
    for (int w = 0; w < workers; ++w) { const u64 s = ld_gpu(past + w * stride); least = s < least ? s : least; }
    if (least > c) {
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
      if (kind == 2) cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
      st_sys(host_flag, least);
      st_rel_gpu(flagged, least);
      c = least;
    }
  }
}

int main(int argc, char** argv) {
  const u64 bytes = 64ull << 20, n = bytes / 16;
  uint4 *hin, *hout;
  CK(cudaHostAlloc(&hin, bytes, cudaHostAllocMapped));
  CK(cudaHostAlloc(&hout, bytes, cudaHostAllocMapped));
  for (u64 i = 0; i < bytes / 4; ++i) reinterpret_cast<unsigned*>(hin)[i] = (unsigned)(i * 2654435761u + 7);
  u64* host_words;
  CK(cudaHostAlloc(&host_words, 4096, cudaHostAllocMapped));
  memset(host_words, 0, 4096);
  uint4 *din, *dout;
  u64* hw;
  CK(cudaHostGetDevicePointer(&din, hin, 0));
  CK(cudaHostGetDevicePointer(&dout, hout, 0));
  CK(cudaHostGetDevicePointer(&hw, host_words, 0));
  u64* dev;  // finished, ops[2], flagged, past[...]
  CK(cudaMalloc(&dev, 1 << 16));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));

  auto check = [&](const char* what) {
    // every output quad's x is in.x * K + 1, the rest unchanged
    const unsigned* i4 = reinterpret_cast<const unsigned*>(hin);
    const unsigned* o4 = reinterpret_cast<const unsigned*>(hout);
    u64 bad = 0;
    for (u64 q = 0; q < n; ++q) {
      if (o4[4 * q] != i4[4 * q] * 2654435761u + 1 || o4[4 * q + 1] != i4[4 * q + 1] || o4[4 * q + 2] != i4[4 * q + 2] ||
          o4[4 * q + 3] != i4[4 * q + 3])
        ++bad;
    }
    if (bad) printf("  %s: %llu WRONG quads\n", what, (unsigned long long)bad);
    return bad == 0;
  };
  auto poison = [&] { memset(hout, 0xEE, bytes); };
  auto median = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };

  printf("== side ops beside 16 or 32 streaming teams, 64 MiB both ways; GB/s per direction (median of 7), ops per us\n");
  const char* kinds[] = {"nothing", "fence rel gpu", "fence rel sys", "fence acq sys", "poll host", "poll + fence acq sys",
                         "fence rel sys + flag", "poll host-written word"};
  for (int streamers : {16, 32}) {
    for (int kind : {0, 4, 7, 2}) {
      for (u64 gap : {0ull, 1000ull, 3000ull, 10000ull}) {
        if (kind == 0 && gap) continue;
        std::vector<float> ms;
        u64 ops[2] = {0, 0};
        bool ok = true;
        for (int r = 0; r < 8; ++r) {
          poison();
          CK(cudaMemset(dev, 0, 1 << 16));
          std::atomic<bool> stop{false};
          std::thread writer([&] {
            if (kind != 7) return;
            for (u64 v = 1; !stop.load(std::memory_order_relaxed); ++v) {
              std::atomic_ref<u64>(host_words[0]).store(v, std::memory_order_release);
              const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(1);
              while (std::chrono::steady_clock::now() < until) {
              }
            }
          });
          CK(cudaEventRecord(a));
          stream_with_side<<<streamers + 1, team>>>(din, dout, n, streamers, kind, gap, dev, dev + stride, hw);
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          stop = true;
          writer.join();
          CK(cudaGetLastError());
          float t;
          CK(cudaEventElapsedTime(&t, a, b));
          if (r) ms.push_back(t);
          CK(cudaMemcpy(ops, dev + stride, sizeof ops, cudaMemcpyDeviceToHost));
          if (r == 7) ok = check(kinds[kind]);
        }
        const float m = median(ms);
        printf("  %2d teams  %-22s gap %5.1f us  %6.2f GB/s  %7.3f ops/us  %s\n", streamers, kinds[kind], gap / 1e3,
               bytes / m / 1e6, ops[0] / (m * 1e3), ok ? "PASSED" : "FAILED");
      }
    }
  }

  printf("== device-only chunk pipeline (no host in the loop): 16 workers dealt every chunk, flagger fences per batch\n");
  for (int kind : {2}) {
    for (u64 chunk : {64ull << 10, 128ull << 10, 256ull << 10, 1ull << 20}) {
      for (int window : {1, 2, 4, 8}) {
        std::vector<float> ms;
        bool ok = true;
        for (int r = 0; r < 6; ++r) {
          poison();
          CK(cudaMemset(dev, 0, 1 << 16));
          CK(cudaEventRecord(a));
          pipeline<<<17, team>>>(din, dout, n, chunk / 16, 16, window, kind, dev + 4 * stride, dev + 3 * stride, hw);
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          CK(cudaGetLastError());
          float t;
          CK(cudaEventElapsedTime(&t, a, b));
          if (r) ms.push_back(t);
          if (r == 5) ok = check("pipeline");
        }
        const float m = median(ms);
        const double gbs = bytes / m / 1e6;
        printf("  %s  chunk %5llu KiB  window %d  %6.2f GB/s  a chunk every %6.2f us  %s\n",
               kind == 2 ? "fence  " : "nofence", (unsigned long long)(chunk >> 10), window, gbs, chunk / gbs / 1e3,
               ok ? "PASSED" : "FAILED");
      }
    }
  }
  return 0;
}
