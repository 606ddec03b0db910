// The reference for link's "doorbell -> echo seen by the host": the least a
// round trip through mapped memory can cost. One thread polls a volatile word
// and writes what it saw back, with no fence and no clock; the host does the
// same from its side. link's echo must come within 5% of this in the same
// call (scripts/gpu-evidence.sh link runs both); on an H100 link's read
// 2.62 us against this probe's 2.52-2.57.
// Usage: minimal_echo [ROUND_TRIPS] (default 10000, after 1000 untimed)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr std::uint64_t stop = ~0ull;
// The kernel's only bound: polls without a new value (about 10 s at 1 us a poll), counted, not timed.
constexpr std::uint64_t most_idle_polls = 10'000'000;

void check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "minimal_echo: %s: %s\n", call, cudaGetErrorString(status));
  std::exit(3);
}

__global__ void echo(const volatile std::uint64_t* doorbell, volatile std::uint64_t* reply) {
  std::uint64_t last = 0, idle = 0;
  while (idle < most_idle_polls) {
    const std::uint64_t value = *doorbell;
    if (value == last) {
      ++idle;
      continue;
    }
    *reply = value;
    if (value == stop) return;
    last = value;
    idle = 0;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const long timed = argc > 1 ? std::atol(argv[1]) : 10000;
  if (timed < 1) {
    std::fprintf(stderr, "minimal_echo: ROUND_TRIPS must be a count of 1 or more\n");
    return 2;
  }
  constexpr long untimed = 1000;
  std::uint64_t* words = nullptr;
  check(cudaHostAlloc(&words, 2 * sizeof(std::uint64_t), cudaHostAllocMapped), "cudaHostAlloc");
  std::uint64_t* device_words = nullptr;
  check(cudaHostGetDevicePointer(&device_words, words, 0), "cudaHostGetDevicePointer");
  volatile std::uint64_t* doorbell = words;
  volatile std::uint64_t* reply = words + 1;
  *doorbell = 0;
  *reply = 0;
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  echo<<<1, 1, 0, stream>>>(device_words, device_words + 1);
  check(cudaGetLastError(), "launch");

  std::vector<double> seconds;
  seconds.reserve(static_cast<std::size_t>(timed));
  long wrong = 0;
  for (long i = 1; i <= untimed + timed; ++i) {
    const auto start = std::chrono::steady_clock::now();
    *doorbell = static_cast<std::uint64_t>(i);
    std::uint64_t seen;
    while ((seen = *reply) == static_cast<std::uint64_t>(i - 1)) {
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) {
        std::fprintf(stderr, "minimal_echo: no echo of %ld within 5 s\n", i);
        return 3;
      }
    }
    const auto end = std::chrono::steady_clock::now();
    wrong += seen != static_cast<std::uint64_t>(i);
    if (i > untimed) seconds.push_back(std::chrono::duration<double>(end - start).count());
  }
  *doorbell = stop;
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  check(cudaFreeHost(words), "cudaFreeHost");

  std::sort(seconds.begin(), seconds.end());
  const auto at = [&](double q) {
    return seconds[static_cast<std::size_t>(q * static_cast<double>(seconds.size() - 1))] * 1e6;
  };
  std::printf("minimal echo (volatile poll and reply, no fence, no clock): median %.3f us, p10 %.3f, p90 %.3f, "
              "%ld round trips, %ld wrong\n",
              at(0.5), at(0.1), at(0.9), timed, wrong);
  return wrong == 0 ? 0 : 1;
}
