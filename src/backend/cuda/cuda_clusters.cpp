#include "backend/cuda/cuda_clusters.hpp"

#include "backend/cuda/cuda_launch.cuh"

namespace ferry::cuda {
namespace {

struct NothingToDo {
  template <class Team>
  __host__ __device__ void operator()(const Team&) const {}
};

}  // namespace

int largest_cluster_on(int device) {
  int clusters = 0;
  FERRY_CUDA(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  return clusters != 0 ? largest_cluster<NothingToDo>(device, 0) : 0;
}

}  // namespace ferry::cuda
