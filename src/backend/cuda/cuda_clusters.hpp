#pragma once
// How large a thread-block cluster a device launches, for DeviceFeatures:
// asked of a kernel with no on-chip memory (cuda_clusters.cpp, compiled as CUDA).
namespace ferry::cuda {

// The most teams of 256 threads one cluster may have on `device`, sizes above
// the portable 8 allowed; 0 where the device launches no clusters.
int largest_cluster_on(int device);

}  // namespace ferry::cuda
