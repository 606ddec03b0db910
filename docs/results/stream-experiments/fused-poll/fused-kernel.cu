// ferry's own FusedStream kernel (one team, one slot, 4 KiB chunks) driven by the bisect probe's
// host loop, over ferry-like buffers: a stream of STREAM bytes filled and poisoned by host threads
// just before each pass, each pass all its chunks in order. Prints the median over every chunk.
// Built against a tree's src/ (-I), so the same file measures two trees' kernels.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "bench/stream/stream_fused_kernels.hpp"
#include "backend/cuda/cuda_launch.cuh"

#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      return 1;                                      \
    }                                                \
  } while (0)

using namespace ferry::stream;
using u64 = unsigned long long;


// ferry's FusedStream::operator() for one team and one slot, with one piece at a time changed:
// Sync 1: the doorbell handed over through shared memory and __syncthreads, not __syncthreads_or;
// Slice 1: the team's quads computed before the poll, not after it;
// Move 1: the probe's loop (a quad a thread, no wave template).
template <int Sync, int Slice, int Move>
__global__ void __launch_bounds__(256) variant(FusedStream k) {
  ferry::cuda::DeviceTeam team;
  __shared__ int go_shared;
  const StageRange all{0, k.stages, k.rounds};
  for (std::uint64_t c = 0;; ++c) {
    const std::uint64_t first = c * k.chunk_quads;
    ferry::Slice pre{0, k.chunk_quads};
    if constexpr (Slice == 1) {
      const std::uint64_t quads = k.total_quads - first < k.chunk_quads ? k.total_quads - first : k.chunk_quads;
      pre = ferry::team_slice(quads, 0, 1);
    }
    bool go = false;
    if (team.rank() == 0) {
      const Wait wait = wait_past<true>(k.doorbells, c, k.timeout_ns);
      go = wait == Wait::go;
      if constexpr (Sync == 1) go_shared = go;
    }
    bool all_go;
    if constexpr (Sync == 1) {
      __syncthreads();
      all_go = go_shared;
    } else {
      all_go = team.sync_or(go);
    }
    if (!all_go) return;
    ferry::Slice slice = pre;
    if constexpr (Slice == 0) {
      const std::uint64_t quads = k.total_quads - first < k.chunk_quads ? k.total_quads - first : k.chunk_quads;
      slice = ferry::team_slice(quads, 0, 1);
    }
    if constexpr (Move == 0) {
      move_slice(team, k.input + first, k.output + first, slice, all);
    } else {
      for (std::uint64_t i = slice.lo + threadIdx.x; i < slice.hi; i += blockDim.x)
        k.output[first + i] = stage_quad(k.input[first + i], 0, k.stages, k.rounds);
    }
    team.sync();
    if (team.rank() == 0) ferry::store_release_system(k.done, c + 1);
  }
}

static void host_fill(void* p, size_t bytes, unsigned char v) {
  std::vector<std::thread> t;
  const int n = 8;
  for (int k = 0; k < n; ++k) t.emplace_back([=] { memset((char*)p + bytes / n * k, v + k, bytes / n); });
  for (auto& x : t) x.join();
}

int main(int argc, char** argv) {
  const size_t stream_bytes = argc > 1 ? std::stoull(argv[1]) << 20 : 256ull << 20;
  const int stages = argc > 2 ? atoi(argv[2]) : 3;
  const int which = argc > 3 ? atoi(argv[3]) : -1;  // -1: ferry's kernel; else Sync*4 + Slice*2 + Move
  CK(cudaSetDeviceFlags(cudaDeviceMapHost));
  std::uint64_t* flags;
  CK(cudaHostAlloc(&flags, 4096, cudaHostAllocMapped | cudaHostAllocPortable));
  void *in, *out;
  CK(cudaHostAlloc(&in, stream_bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  CK(cudaHostAlloc(&out, stream_bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  std::uint64_t *dflags, *relay;
  void *din, *dout;
  CK(cudaHostGetDevicePointer(&dflags, flags, 0));
  CK(cudaHostGetDevicePointer(&din, in, 0));
  CK(cudaHostGetDevicePointer(&dout, out, 0));
  CK(cudaMalloc(&relay, 4096));
  CK(cudaMemset(relay, 0, 4096));
  const u64 chunk_bytes = 4096, chunks = stream_bytes / chunk_bytes;
  std::vector<double> t;
  for (int pass = 0; pass < 4; ++pass) {
    host_fill(in, stream_bytes, 0x5a + pass);
    host_fill(out, stream_bytes, 0xa5);
    memset(flags, 0, 4096);
    FusedStream k{};
    k.stages = stages;
    k.rounds = 2;
    k.slots = 1;
    k.groups = 1;
    k.teams_per_group = 1;
    k.chunk_quads = chunk_bytes / quad_bytes;
    k.total_quads = stream_bytes / quad_bytes;
    k.input = static_cast<const Quad*>(din);
    k.output = static_cast<Quad*>(dout);
    k.doorbells = dflags;
    k.done = dflags + flag_stride;
    k.failure = dflags + 2 * flag_stride;
    k.relay = relay;
    k.timeout_ns = 5000000000ull;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    using V = void (*)(FusedStream);
    const V variants[8] = {variant<0, 0, 0>, variant<0, 0, 1>, variant<0, 1, 0>, variant<0, 1, 1>,
                           variant<1, 0, 0>, variant<1, 0, 1>, variant<1, 1, 0>, variant<1, 1, 1>};
    if (which < 0) ferry::cuda::teams_kernel<FusedStream, false><<<1, 256, 0, s>>>(k);
    else variants[which]<<<1, 256, 0, s>>>(k);
    CK(cudaGetLastError());
    std::uint64_t* bell = flags;
    const std::uint64_t* done = flags + flag_stride;
    for (u64 c = 0; c < chunks; ++c) {
      auto t0 = std::chrono::steady_clock::now();
      __atomic_store_n(bell, c + 1, __ATOMIC_RELEASE);
      const auto deadline = t0 + std::chrono::seconds(5);
      while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < c + 1)
        if (std::chrono::steady_clock::now() > deadline) {
          printf("timeout at chunk %llu\n", c);
          return 1;
        }
      auto t1 = std::chrono::steady_clock::now();
      if (pass > 0) t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    __atomic_store_n(bell, shutdown_bit, __ATOMIC_RELEASE);
    CK(cudaStreamSynchronize(s));
    CK(cudaStreamDestroy(s));
  }
  std::sort(t.begin(), t.end());
  printf("kernel %2d (-1 ferry; Sync*4+Slice*2+Move), %zu MiB stream, %d stages: median %.3f us  p10 %.3f  p90 %.3f  (%zu chunks)\n",
         which, stream_bytes >> 20, stages, t[t.size() / 2], t[t.size() / 10], t[t.size() * 9 / 10], t.size());
  return 0;
}
