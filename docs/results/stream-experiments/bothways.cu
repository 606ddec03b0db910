// Experiment (not committed): zero-copy both ways, who reads and who writes.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e=(x); if(e){printf("%s: %s\n",#x,cudaGetErrorString(e)); exit(1);}}while(0)
template<int L>
__global__ void both_same_thread(const uint4* in, uint4* out, size_t n) {
  size_t step = (size_t)gridDim.x*blockDim.x;
  for (size_t b = blockIdx.x*(size_t)blockDim.x+threadIdx.x; b < n; b += L*step) {
    uint4 h[L];
#pragma unroll
    for (int k=0;k<L;k++) if (b+k*step<n) h[k]=in[b+k*step];
#pragma unroll
    for (int k=0;k<L;k++) if (b+k*step<n) { uint4 v=h[k]; v.x+=1; out[b+k*step]=v; }
  }
}
// Blocks [0, readers) copy host->device; the rest copy device->host.
template<int L>
__global__ void both_split_blocks(const uint4* hin, uint4* dout, const uint4* din, uint4* hout, size_t n, int readers) {
  bool reader = blockIdx.x < readers;
  int nb = reader ? readers : gridDim.x - readers;
  int bi = reader ? blockIdx.x : blockIdx.x - readers;
  const uint4* in = reader ? hin : din; uint4* out = reader ? dout : hout;
  size_t step = (size_t)nb*blockDim.x;
  for (size_t b = bi*(size_t)blockDim.x+threadIdx.x; b < n; b += L*step) {
    uint4 h[L];
#pragma unroll
    for (int k=0;k<L;k++) if (b+k*step<n) h[k]=in[b+k*step];
#pragma unroll
    for (int k=0;k<L;k++) if (b+k*step<n) { uint4 v=h[k]; v.x+=1; out[b+k*step]=v; }
  }
}
// Warps of one block split: first half host->device, second half device->host.
template<int L>
__global__ void both_split_warps(const uint4* hin, uint4* dout, const uint4* din, uint4* hout, size_t n) {
  int half = blockDim.x/2; bool reader = threadIdx.x < half; int t = reader ? threadIdx.x : threadIdx.x-half;
  const uint4* in = reader ? hin : din; uint4* out = reader ? dout : hout;
  size_t step = (size_t)gridDim.x*half;
  for (size_t b = blockIdx.x*(size_t)half+t; b < n; b += L*step) {
    uint4 h[L];
#pragma unroll
    for (int k=0;k<L;k++) if (b+k*step<n) h[k]=in[b+k*step];
#pragma unroll
    for (int k=0;k<L;k++) if (b+k*step<n) { uint4 v=h[k]; v.x+=1; out[b+k*step]=v; }
  }
}
int main() {
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t maxb = 256u<<20;
  uint4 *hin,*hout,*din,*dout;
  CK(cudaHostAlloc(&hin,maxb,cudaHostAllocMapped)); CK(cudaHostAlloc(&hout,maxb,cudaHostAllocMapped));
  memset(hin,1,maxb); memset(hout,0,maxb);
  CK(cudaMalloc(&din,maxb)); CK(cudaMalloc(&dout,maxb)); CK(cudaMemset(din,2,maxb));
  uint4 *hin_d,*hout_d; CK(cudaHostGetDevicePointer(&hin_d,hin,0)); CK(cudaHostGetDevicePointer(&hout_d,hout,0));
  cudaEvent_t a,b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto time = [&](auto launch) { float best=1e9; for (int r=0;r<7;r++){ cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b)); float ms; cudaEventElapsedTime(&ms,a,b); if(r>1&&ms<best)best=ms;} return best; };
  size_t sizes[] = {1u<<20, 4u<<20, 16u<<20, 64u<<20, 256u<<20};
  for (int bps : {2, 4}) for (size_t bytes : sizes) {
    size_t n = bytes/16; int grid = sms*bps;
    float t1 = time([&]{ both_same_thread<8><<<grid,256>>>(hin_d,hout_d,n); });
    float t1b = time([&]{ both_same_thread<2><<<grid,256>>>(hin_d,hout_d,n); });
    float t2 = time([&]{ both_split_blocks<8><<<grid,256>>>(hin_d,dout,din,hout_d,n,grid/2); });
    float t3 = time([&]{ both_split_warps<8><<<grid,512>>>(hin_d,dout,din,hout_d,n); });
    float tr = time([&]{ both_split_blocks<8><<<grid,256>>>(hin_d,dout,din,hout_d,n,grid); });  // all read
    float tw = time([&]{ both_split_blocks<8><<<grid,256>>>(hin_d,dout,din,hout_d,n,0); });     // all write
    CK(cudaGetLastError());
    auto g=[&](float ms){return bytes/ms/1e6;};
    printf("blocks/SM %d %4zu MiB  same-thread L8 %5.1f  L2 %5.1f  split-blocks %5.1f  split-warps %5.1f  | read-only %5.1f write-only %5.1f GB/s per direction\n",
      bps, bytes>>20, g(t1), g(t1b), g(t2), g(t3), g(tr), g(tw));
  }
  // Fewer SMs: per-SM rates.
  for (int blocks : {1, 4, 16, 33, 66}) {
    size_t bytes = 16u<<20, n = bytes/16;
    float tr = time([&]{ both_split_blocks<8><<<blocks,256>>>(hin_d,dout,din,hout_d,n,blocks); });
    float tw = time([&]{ both_split_blocks<8><<<blocks,256>>>(hin_d,dout,din,hout_d,n,0); });
    float t1 = time([&]{ both_same_thread<8><<<blocks,256>>>(hin_d,hout_d,n); });
    printf("%3d blocks 16 MiB: read-only %5.1f write-only %5.1f same-thread both %5.1f GB/s\n", blocks, bytes/tr/1e6, bytes/tw/1e6, bytes/t1/1e6);
  }
  return 0;
}
