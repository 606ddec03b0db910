#pragma once
// What host and device code share: FERRY_HD marks a function that the CUDA
// backend runs on the GPU and the emulator runs on a CPU thread, and the few
// memory-model operations such code needs, spelled once for both.
#include <chrono>
#include <cstdint>
#include <thread>

#if defined(__CUDACC__)
#include <cuda/atomic>
#define FERRY_HD __host__ __device__
#else
#define FERRY_HD
#endif
// Asks the device compiler to unroll the loop that follows; the host compiler does not know the pragma.
#if defined(__CUDA_ARCH__)
#define FERRY_UNROLL _Pragma("unroll")
#else
#define FERRY_UNROLL
#endif

namespace ferry {

#if !defined(__CUDACC__)
// ThreadSanitizer does not model fences: to it a relaxed poll followed by an
// acquire fence, or a release fence and then a relaxed store, orders nothing,
// so every hand-off made that way reads as a race. Built for TSan, the
// emulator's relaxed loads and stores are acquire loads and release stores:
// stronger orders, so every execution they allow the program allows too.
#if defined(__SANITIZE_THREAD__)
#define FERRY_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FERRY_TSAN 1
#endif
#endif
#if defined(FERRY_TSAN)
inline constexpr int host_relaxed_load = __ATOMIC_ACQUIRE, host_relaxed_store = __ATOMIC_RELEASE;
#else
inline constexpr int host_relaxed_load = __ATOMIC_RELAXED, host_relaxed_store = __ATOMIC_RELAXED;
#endif
#endif

// Loads and stores that another agent (the host, or a kernel) watches: system
// scope, because the other side may be across PCIe.
FERRY_HD inline std::uint64_t load_acquire_system(const std::uint64_t* p) {
#if defined(__CUDACC__)
  return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*const_cast<std::uint64_t*>(p))
      .load(cuda::memory_order_acquire);
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

FERRY_HD inline void store_release_system(std::uint64_t* p, std::uint64_t value) {
#if defined(__CUDACC__)
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*p).store(value, cuda::memory_order_release);
#else
  __atomic_store_n(p, value, __ATOMIC_RELEASE);
#endif
}

// After a relaxed poll has seen its value: orders the reads that follow after
// it, as an acquire load would, without reading the word again (across PCIe,
// a second round trip). On the GPU it is a full fence (fence.acq_rel.sys),
// which also waits for the thread's writes to the host: a poll that is an
// acquire load from the start costs less (wait_past).
FERRY_HD inline void fence_acquire_system() {
#if defined(__CUDACC__)
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
#else
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

// The same for a value another team of this device published: device scope,
// which never waits for this thread's writes to host memory to land there.
FERRY_HD inline void fence_acquire_device() {
#if defined(__CUDACC__)
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
#else
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

// The same between teams of one device: device scope, so no fence waits
// for the host.
FERRY_HD inline std::uint64_t load_acquire_device(const std::uint64_t* p) {
#if defined(__CUDACC__)
  return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(*const_cast<std::uint64_t*>(p))
      .load(cuda::memory_order_acquire);
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

FERRY_HD inline void store_release_device(std::uint64_t* p, std::uint64_t value) {
#if defined(__CUDACC__)
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(*p).store(value, cuda::memory_order_release);
#else
  __atomic_store_n(p, value, __ATOMIC_RELEASE);
#endif
}

// The same between the threads of one team (a word in its on-chip memory):
// block scope, which never waits for any write to leave the multiprocessor.
FERRY_HD inline std::uint64_t load_acquire_team(const std::uint64_t* p) {
#if defined(__CUDACC__)
  return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_block>(*const_cast<std::uint64_t*>(p))
      .load(cuda::memory_order_acquire);
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

FERRY_HD inline void store_release_team(std::uint64_t* p, std::uint64_t value) {
#if defined(__CUDACC__)
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_block>(*p).store(value, cuda::memory_order_release);
#else
  __atomic_store_n(p, value, __ATOMIC_RELEASE);
#endif
}

// Data that carries its own validity (a word with its chunk number beside it)
// needs no ordering, only a single-copy-atomic 8-byte access that bypasses
// the multiprocessor's own cache.
FERRY_HD inline std::uint64_t load_relaxed_device(const std::uint64_t* p) {
#if defined(__CUDACC__)
  return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(*const_cast<std::uint64_t*>(p))
      .load(cuda::memory_order_relaxed);
#else
  return __atomic_load_n(p, host_relaxed_load);
#endif
}

FERRY_HD inline void store_relaxed_device(std::uint64_t* p, std::uint64_t value) {
#if defined(__CUDACC__)
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(*p).store(value, cuda::memory_order_relaxed);
#else
  __atomic_store_n(p, value, host_relaxed_store);
#endif
}

// The same across devices (a peer GPU's memory over NVLink or PCIe): words that
// carry their own validity, written by one GPU and polled by another.
FERRY_HD inline std::uint64_t load_relaxed_system(const std::uint64_t* p) {
#if defined(__CUDACC__)
  return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*const_cast<std::uint64_t*>(p))
      .load(cuda::memory_order_relaxed);
#else
  return __atomic_load_n(p, host_relaxed_load);
#endif
}

FERRY_HD inline void store_relaxed_system(std::uint64_t* p, std::uint64_t value) {
#if defined(__CUDACC__)
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*p).store(value, cuda::memory_order_relaxed);
#else
  __atomic_store_n(p, value, host_relaxed_store);
#endif
}

// A 16-byte line of two words that another device writes and this one polls
// (the p2p-sm LL protocol): one vector access on the GPU, where volatile is
// relaxed at system scope; each 8-byte word is single-copy atomic either way,
// so each carries its own tag.
FERRY_HD inline void store_pair_volatile(std::uint64_t* p, std::uint64_t first, std::uint64_t second) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(first), "l"(second) : "memory");
#else
  __atomic_store_n(p, first, __ATOMIC_RELAXED);
  __atomic_store_n(p + 1, second, __ATOMIC_RELAXED);
#endif
}

FERRY_HD inline void load_pair_volatile(const std::uint64_t* p, std::uint64_t& first, std::uint64_t& second) {
#if defined(__CUDA_ARCH__)
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(first), "=l"(second) : "l"(p) : "memory");
#else
  first = __atomic_load_n(p, __ATOMIC_RELAXED);
  second = __atomic_load_n(p + 1, __ATOMIC_RELAXED);
#endif
}

// Adds one and returns the count before, ordering this thread's earlier writes
// (host memory included) before the count and later reads after it.
FERRY_HD inline std::uint64_t increment_acq_rel_system(std::uint64_t* counter) {
#if defined(__CUDACC__)
  return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*counter).fetch_add(1, cuda::memory_order_acq_rel);
#else
  return __atomic_fetch_add(counter, 1, __ATOMIC_ACQ_REL);
#endif
}

// Before a relaxed count that another team of the device acts on: this
// thread's earlier writes (host memory included) come first, for whoever
// acquires after the count. Device scope: the writes need only reach the
// device's point of coherence, not the host.
FERRY_HD inline void fence_release_device() {
#if defined(__CUDACC__)
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
#else
  __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

// The same before relaxed stores that the host acts on: system scope, so the
// earlier writes (this thread's, and those it acquired from other teams)
// reach host memory first. One fence can then cover several flags.
FERRY_HD inline void fence_release_system() {
#if defined(__CUDACC__)
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
#else
  __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

// Adds one and returns the count before; no ordering of its own.
FERRY_HD inline std::uint64_t increment_relaxed_device(std::uint64_t* counter) {
#if defined(__CUDACC__)
  return cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(*counter).fetch_add(1, cuda::memory_order_relaxed);
#else
  return __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
#endif
}

FERRY_HD inline void add_relaxed(unsigned long long* counter, unsigned long long value) {
#if defined(__CUDACC__)
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*counter).fetch_add(value,
                                                                                      cuda::memory_order_relaxed);
#else
  __atomic_fetch_add(counter, value, __ATOMIC_RELAXED);
#endif
}

// Nanoseconds for timeouts inside kernels: the GPU's global timer on the device,
// the steady clock on the host. Only differences mean anything.
FERRY_HD inline std::uint64_t timeout_clock_ns() {
#if defined(__CUDA_ARCH__)
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
#endif
}

// The part [lo, hi) of `items` that team `index` of `count` teams handles.
struct Slice {
  std::uint64_t lo, hi;
};
FERRY_HD inline Slice team_slice(std::uint64_t items, int index, int count) {
  const std::uint64_t share = (items + count - 1) / count;
  const std::uint64_t lo = share * index < items ? share * index : items;
  return {lo, lo + share < items ? lo + share : items};
}

// Inside a poll loop. On the GPU a spinning thread costs nothing the others
// need; on the emulator more threads spin than there are cores, so give way.
FERRY_HD inline void spin_pause() {
#if !defined(__CUDA_ARCH__)
  std::this_thread::yield();
#endif
}

}  // namespace ferry
