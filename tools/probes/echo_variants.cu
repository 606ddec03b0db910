// Which part of link's flag echo costs time: variants of the kernel's poll and reply, and of the host's wait.
#include <cuda/atomic>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <chrono>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(3);} } while (0)
constexpr uint64_t STOP = ~0ull;
__device__ inline uint64_t gt() { uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
template <int V> __global__ void echo(uint64_t* door, uint64_t* reply) {
  uint64_t last = 0, since = gt();
  unsigned n = 0;
  for (;;) {
    uint64_t v;
    if (V == 0 || V == 3 || V == 5) v = cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*door).load(cuda::memory_order_acquire);
    else if (V == 1 || V == 4 || V == 6) v = *(volatile uint64_t*)door;
    else v = cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*door).load(cuda::memory_order_relaxed);
    if (v != last) {
      if (V == 0 || V == 4) cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*reply).store(v, cuda::memory_order_release);
      else if (V == 1 || V == 3 || V == 6) *(volatile uint64_t*)reply = v;
      else cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*reply).store(v, cuda::memory_order_relaxed);
      if (v == STOP) return;
      last = v;
      if (V != 1) since = gt();
    } else if (V == 0 || V == 2 || V == 3 || V == 4) {           // clock read every poll, as link's FlagEcho
      if (gt() - since > 10000000000ull) return;
    } else if (V == 5 || V == 6) {                     // clock read every 1024 polls
      if ((++n & 1023) == 0 && gt() - since > 10000000000ull) return;
    }
  }
}
const char* names[] = {"0 link: acquire poll, release reply, clock every poll",
                       "1 minimal: volatile poll, volatile reply, no clock",
                       "2 relaxed.sys poll+reply, clock every poll",
                       "3 acquire poll, volatile reply, clock every poll",
                       "4 volatile poll, release reply, clock every poll",
                       "5 acquire poll, relaxed reply, clock per 1024 polls",
                       "6 volatile poll+reply, clock per 1024 polls"};
template <int V> void run(uint64_t* h, uint64_t* d, int host_mode, int rounds) {
  volatile uint64_t* door = h; volatile uint64_t* reply = h + 1;
  h[0] = 0; h[1] = 0;
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  echo<V><<<1, 1, 0, s>>>(d, d + 1); CK(cudaGetLastError());
  std::vector<double> t;
  for (int i = 1; i <= rounds + 200; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (host_mode == 0) {
      std::atomic_ref<uint64_t>(h[0]).store(i, std::memory_order_release);
      auto start = std::chrono::steady_clock::now();
      while (std::atomic_ref<uint64_t>(h[1]).load(std::memory_order_acquire) != (uint64_t)i) {
        if (std::atomic_ref<uint64_t>(h[1]).load(std::memory_order_acquire) == 12345) break;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > 5) { printf("timeout\n"); exit(1); }
      }
    } else {
      *door = i;
      while (*reply != (uint64_t)i) {}
    }
    double s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i > 200) t.push_back(s_);
  }
  *door = STOP; CK(cudaStreamSynchronize(s)); CK(cudaStreamDestroy(s));
  std::sort(t.begin(), t.end());
  printf("%-58s host %-8s median %.3f us  p10 %.3f  p90 %.3f\n", names[V], host_mode ? "minimal" : "link", t[t.size()/2]*1e6, t[t.size()/10]*1e6, t[t.size()*9/10]*1e6);
}
int main() {
  uint64_t* h; CK(cudaHostAlloc(&h, 4096, cudaHostAllocMapped)); uint64_t* d; CK(cudaHostGetDevicePointer(&d, h, 0));
  // warm the context
  run<1>(h, d, 1, 2000);
  for (int rep = 0; rep < 3; ++rep) {
    for (int hm = 0; hm < 2; ++hm) {
      run<0>(h, d, hm, 5000); run<1>(h, d, hm, 5000); run<2>(h, d, hm, 5000); run<3>(h, d, hm, 5000);
      run<4>(h, d, hm, 5000); run<5>(h, d, hm, 5000); run<6>(h, d, hm, 5000);
    }
    printf("--\n");
  }
}
