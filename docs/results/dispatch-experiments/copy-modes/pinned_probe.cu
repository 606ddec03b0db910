// Throwaway: is a 128 KiB copy's speed a property of the pinned buffer (its pages) or of the process?
// One process, several pinned in/out pairs, blocks of 300 (fresh keys, poisoned output, H2D + D2H + sync), rotating.
#include <cuda_runtime.h>
#include <nvml.h>
#include <sched.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
constexpr std::size_t bytes = 128 * 1024;
struct Pair { const char* how; std::uint32_t* in; std::uint32_t* out; };
static std::uint64_t pfn(const void* p) {
  static int fd = open("/proc/self/pagemap", O_RDONLY);
  std::uint64_t e = 0;
  if (fd < 0 || pread(fd, &e, 8, (reinterpret_cast<std::uintptr_t>(p) / 4096) * 8) != 8) return 0;
  return e & ((1ull << 55) - 1);
}
static void pages(const char* name, const void* p) {
  std::uint64_t first = pfn(p), runs = 1, prev = first;
  for (std::size_t o = 4096; o < bytes; o += 4096) { std::uint64_t f = pfn(static_cast<const char*>(p) + o); if (f != prev + 1) ++runs; prev = f; }
  std::printf("    %s va %p pfn 0x%llx (2M-aligned frame: %s) contiguous runs of 4K pages: %llu\n", name, p,
              (unsigned long long)first, (first % 512) == 0 ? "yes" : "no", (unsigned long long)runs);
}
static std::uint32_t* huge(bool hugetlb) {
  void* p = mmap(nullptr, 2 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (hugetlb ? MAP_HUGETLB : 0), -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (!hugetlb) {
    munmap(p, 2 << 20);
    p = mmap(nullptr, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    auto a = (reinterpret_cast<std::uintptr_t>(p) + (2 << 20) - 1) & ~std::uintptr_t((2 << 20) - 1);
    p = reinterpret_cast<void*>(a);
    madvise(p, 2 << 20, MADV_HUGEPAGE);
  }
  std::memset(p, 1, 2 << 20);
  CHECK(cudaHostRegister(p, 2 << 20, cudaHostRegisterDefault));
  return static_cast<std::uint32_t*>(p);
}
static nvmlDevice_t nvml_device;
static void state(char* text, std::size_t n) {
  unsigned sm = 0, mem = 0, gen = 0, width = 0; nvmlPstates_t ps = NVML_PSTATE_UNKNOWN; unsigned long long reasons = 0;
  nvmlDeviceGetClockInfo(nvml_device, NVML_CLOCK_SM, &sm); nvmlDeviceGetClockInfo(nvml_device, NVML_CLOCK_MEM, &mem);
  nvmlDeviceGetCurrPcieLinkGeneration(nvml_device, &gen); nvmlDeviceGetCurrPcieLinkWidth(nvml_device, &width);
  nvmlDeviceGetPerformanceState(nvml_device, &ps); nvmlDeviceGetCurrentClocksEventReasons(nvml_device, &reasons);
  std::snprintf(text, n, "sm %4u MHz mem %4u MHz pcie gen%u x%u P%d reasons 0x%llx cpu %d", sm, mem, gen, width, (int)ps, reasons, sched_getcpu());
}
int main() {
  CHECK(cudaSetDevice(0));
  if (nvmlInit() != NVML_SUCCESS || nvmlDeviceGetHandleByIndex(0, &nvml_device) != NVML_SUCCESS) std::printf("no nvml\n");
  std::uint32_t* dev; CHECK(cudaMalloc(&dev, bytes));
  cudaStream_t s; CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
  std::vector<Pair> pairs;
  std::vector<void*> junk;
  for (int i = 0; i < 1; ++i) {
    std::uint32_t *in, *out;
    CHECK(cudaHostAlloc(&in, bytes, cudaHostAllocDefault)); CHECK(cudaHostAlloc(&out, bytes, cudaHostAllocDefault));
    pairs.push_back({"cudaHostAlloc", in, out});
    void* j; CHECK(cudaHostAlloc(&j, (i + 1) * 3 * 4096 + 777, cudaHostAllocDefault)); junk.push_back(j);
  }
  { std::uint32_t *in = huge(false), *out = huge(false); if (in && out) pairs.push_back({"THP 2M registered", in, out}); }
  { std::uint32_t *in = huge(true), *out = huge(true); if (in && out) pairs.push_back({"hugetlb 2M registered", in, out}); else std::printf("  (no hugetlb pages)\n"); }
  { auto* in = static_cast<std::uint32_t*>(aligned_alloc(4096, bytes)); auto* out = static_cast<std::uint32_t*>(aligned_alloc(4096, bytes));
    std::memset(in, 1, bytes); std::memset(out, 1, bytes);
    CHECK(cudaHostRegister(in, bytes, 0)); CHECK(cudaHostRegister(out, bytes, 0)); pairs.push_back({"malloc 128K registered", in, out}); }
  for (std::size_t i = 0; i < pairs.size(); ++i) { std::printf("  pair %zu: %s\n", i, pairs[i].how); pages("in ", pairs[i].in); pages("out", pairs[i].out); }
  std::uint32_t seed = 1;
  for (int block = 0; block < 10; ++block) {
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      auto& p = pairs[i];
      std::vector<double> host, device, prepared_host;
      char mid[160] = "";
      for (int it = 0; it < 330; ++it) {
        for (std::size_t k = 0; k < bytes / 4; ++k) p.in[k] = (seed = seed * 1664525u + 1013904223u);
        std::memset(p.out, 0xA5, bytes);
        const auto t0 = std::chrono::steady_clock::now();
        CHECK(cudaEventRecord(a, s));
        CHECK(cudaMemcpyAsync(dev, p.in, bytes, cudaMemcpyHostToDevice, s));
        CHECK(cudaMemcpyAsync(p.out, dev, bytes, cudaMemcpyDeviceToHost, s));
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaStreamSynchronize(s));
        const double h = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        float ms; CHECK(cudaEventElapsedTime(&ms, a, b));
        if (std::memcmp(p.in, p.out, bytes) != 0) { std::printf("MISMATCH pair %zu\n", i); return 1; }
        if (it >= 30) { host.push_back(h); device.push_back(ms * 1000); }
        if (it == 165) state(mid, sizeof mid);
      }
      // The same copies again without fresh data: is the difference the CPU's cache or the pages?
      for (int it = 0; it < 330; ++it) {
        const auto t0 = std::chrono::steady_clock::now();
        CHECK(cudaMemcpyAsync(dev, p.in, bytes, cudaMemcpyHostToDevice, s));
        CHECK(cudaMemcpyAsync(p.out, dev, bytes, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        if (it >= 30) prepared_host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(host.begin(), host.end()); std::sort(device.begin(), device.end()); std::sort(prepared_host.begin(), prepared_host.end());
      std::printf("block %d pair %zu %-24s fresh: host %6.2f us (p10 %6.2f p90 %6.2f) device %6.2f | same keys: host %6.2f | %s\n", block, i,
                  p.how, host[150], host[30], host[270], device[150], prepared_host[150], mid);
    }
  }
  return 0;
}
