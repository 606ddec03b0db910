// Experiment (issue 18): the fused sort as ONE kernel of a thread-block cluster that holds every key
// in its blocks' on-chip memory. Each block sorts its tile with ferry's compile-time stages
// (stage_windows); the passes longer than a tile read and write the other blocks' on-chip memory
// (distributed shared memory) between cluster barriers, instead of sweeping device memory between
// kernels. Measures, for 32768 keys: the kernel alone (events), and end to end on the host clock
// (graph: H2D, kernel, D2H, then a stream sync; and zero-copy: the kernel reading and writing mapped
// host memory), every output checked against std::sort.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "bench/dispatch/fused_sort.hpp"

#ifndef EXP
#define EXP 0
#endif

namespace cg = cooperative_groups;
using namespace ferry::dispatch;

#define CHECK(x)                                                                               \
  do {                                                                                         \
    cudaError_t e = (x);                                                                       \
    if (e != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

struct BlockTeam {
  __host__ __device__ int rank() const {
#if defined(__CUDA_ARCH__)
    return threadIdx.x;
#else
    return 0;
#endif
  }
  __host__ __device__ int size() const {
#if defined(__CUDA_ARCH__)
    return blockDim.x;
#else
    return 1;
#endif
  }
  __host__ __device__ void sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
};

// Index i of the whole sort -> block i / tile's on-chip memory, slot Padded(i % tile).
struct ClusterPlace {
  std::uint32_t* mine;  // this block's on-chip keys
  std::uint32_t tile_bits;
  __device__ std::uint32_t& operator[](std::uint32_t i) const {
    cg::cluster_group cluster = cg::this_cluster();
    const std::uint32_t local = i & ((1u << tile_bits) - 1);
    return *cluster.map_shared_rank(mine + Padded{}(local), static_cast<int>(i >> tile_bits));
  }
};

extern __shared__ __align__(16) unsigned char on_chip_memory[];

__global__ void __launch_bounds__(256) cluster_sort(const std::uint32_t* in, std::uint32_t* out, std::uint32_t count,
                                                    std::uint32_t tile) {
  cg::cluster_group cluster = cg::this_cluster();
  const BlockTeam team;
  const int tile_bits = log2_of(tile), count_bits = log2_of(count);
  const std::uint32_t me = cluster.block_rank();
  const std::uint32_t first = me * tile;
  auto* mine = reinterpret_cast<std::uint32_t*>(on_chip_memory);
  const Place<Padded> on_chip{mine, first, {}};
  const ClusterPlace everyone{mine, static_cast<std::uint32_t>(tile_bits)};
  tile_in(team, const_cast<std::uint32_t*>(in), on_chip, first, tile);
  const std::uint32_t groups = tile >> group_bits;
  const std::uint32_t thread = me * blockDim.x + threadIdx.x, threads = cluster.num_blocks() * blockDim.x;
  for (int block_bits = 1; block_bits <= count_bits; ++block_bits) {
    const std::uint32_t block = 1u << block_bits;
    if (block_bits > tile_bits) {
      for (int hi = block_bits - 1; hi >= tile_bits; hi -= group_bits) {
        const int lo = hi - group_bits + 1 > tile_bits ? hi - group_bits + 1 : tile_bits;
        const Group group = group_for(hi, lo, count_bits);
#if EXP != 2
        cluster.sync();  // every block's keys of the window before are in place
#endif
#if EXP != 1
        for (std::uint32_t g = thread; g < (count >> group.width); g += threads)
          sort_group(everyone, everyone, g, group, block, 0);
#endif
      }
#if EXP != 2
      cluster.sync();
#else
      team.sync();
#endif
    } else {
      team.sync();
    }
#if EXP == 3
    if (block_bits > tile_bits) continue;
#endif
    const int top = (block_bits < tile_bits ? block_bits : tile_bits) - 1;
    with_top_bit(top, [&](auto top_bit) { stage_windows<top_bit()>(team, on_chip, groups, block, first); });
  }
  team.sync();
  tile_out(team, on_chip, out, first, tile);
  cluster.sync();  // no block leaves while another may still read its memory
}

void launch(const std::uint32_t* in, std::uint32_t* out, std::uint32_t count, std::uint32_t tile, cudaStream_t s) {
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = count / tile;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(count / tile);
  config.blockDim = dim3(std::min<std::uint32_t>(256, tile / 8));
  config.dynamicSmemBytes = on_chip_bytes(tile);
  config.stream = s;
  config.attrs = &cluster;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, cluster_sort, in, out, count, tile));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const std::uint32_t count = argc > 1 ? std::atoi(argv[1]) : 32768;
  const std::uint32_t tile = argc > 2 ? std::atoi(argv[2]) : 2048;
  CHECK(cudaFuncSetAttribute(cluster_sort, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const std::size_t bytes = count * 4ull;
  std::uint32_t *h_in, *h_out, *m_in, *m_out, *d_in, *d_out;
  CHECK(cudaMallocHost(&h_in, bytes));
  CHECK(cudaMallocHost(&h_out, bytes));
  CHECK(cudaHostAlloc(&m_in, bytes, cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&m_out, bytes, cudaHostAllocMapped));
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  std::uint32_t *dm_in, *dm_out;
  CHECK(cudaHostGetDevicePointer(&dm_in, m_in, 0));
  CHECK(cudaHostGetDevicePointer(&dm_out, m_out, 0));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::mt19937 rng(7);
  int wrong = 0;
  auto fresh = [&](std::uint32_t* keys) {
    for (std::uint32_t i = 0; i < count; ++i) keys[i] = (i % 8 == 0) ? rng() % 64 : rng();
  };
  auto check = [&](const std::uint32_t* keys_in, const std::uint32_t* keys_out) {
    std::vector<std::uint32_t> expected(keys_in, keys_in + count);
    std::sort(expected.begin(), expected.end());
    if (!std::equal(expected.begin(), expected.end(), keys_out)) ++wrong;
  };
  int clusters = 0;
  {
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = count / tile;
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(count / tile);
    config.blockDim = dim3(std::min<std::uint32_t>(256, tile / 8));
    config.dynamicSmemBytes = on_chip_bytes(tile);
    config.attrs = &cluster;
    config.numAttrs = 1;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, cluster_sort, &config));
  }
  std::printf("%u keys, %u blocks of %u keys (cluster of %u), %d such clusters fit at once\n", count, count / tile, tile,
              count / tile, clusters);

  // The kernel alone, device clock: 200 launches back to back on device memory.
  fresh(h_in);
  CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 20; ++i) launch(d_in, d_out, count, tile, s);
  std::vector<double> kernel_us;
  for (int rep = 0; rep < 5; ++rep) {
    CHECK(cudaEventRecord(a, s));
    for (int i = 0; i < 200; ++i) launch(d_in, d_out, count, tile, s);
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    kernel_us.push_back(ms * 1000 / 200);
  }
  CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
  check(h_in, h_out);
  std::printf("kernel alone, device clock: %.2f us (median of 5 x 200)\n", median(kernel_us));

  // End to end like +fused: a graph of H2D, the kernel and D2H, then a stream sync; host clock.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s));
  launch(d_in, d_out, count, tile, s);
  CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // Zero-copy like +zerocopy: the kernel reads and writes mapped host memory.
  cudaGraph_t zgraph;
  cudaGraphExec_t zexec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  launch(dm_in, dm_out, count, tile, s);
  CHECK(cudaStreamEndCapture(s, &zgraph));
  CHECK(cudaGraphInstantiate(&zexec, zgraph, 0));
  for (int round = 0; round < 2; ++round) {
    for (int zero_copy = 0; zero_copy < 2; ++zero_copy) {
      std::uint32_t* kin = zero_copy ? m_in : h_in;
      std::uint32_t* kout = zero_copy ? m_out : h_out;
      std::vector<double> us;
      for (int i = 0; i < 103; ++i) {
        fresh(kin);
        std::fill_n(kout, count, 0xA5A5A5A5u);
        CHECK(cudaMemsetAsync(d_out, 0xA5, bytes, s));
        CHECK(cudaStreamSynchronize(s));
        const auto t0 = std::chrono::steady_clock::now();
        CHECK(cudaGraphLaunch(zero_copy ? zexec : exec, s));
        CHECK(cudaStreamSynchronize(s));
        const auto t1 = std::chrono::steady_clock::now();
        if (i >= 3) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        check(kin, kout);
      }
      std::vector<double> sorted = us;
      std::sort(sorted.begin(), sorted.end());
      std::printf("%s end to end, host clock: median %.2f us, min %.2f, p99 %.2f (n=100)\n",
                  zero_copy ? "zero-copy (kernel reads/writes mapped memory)" : "H2D + kernel + D2H graph      ",
                  sorted[50], sorted[0], sorted[98]);
    }
  }
  std::printf("outputs wrong: %d (every run checked against std::sort)\n", wrong);
  return EXP == 0 && wrong != 0;
}
