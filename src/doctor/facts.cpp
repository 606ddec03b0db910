#include "doctor/facts.hpp"

namespace ferry::doctor {

const std::vector<std::pair<std::string, std::string>>& path_variables() {
  static const std::vector<std::pair<std::string, std::string>> all = {
      {"NCCL_P2P_DISABLE", "NCCL moves data between GPUs through host memory instead of NVLink or PCIe peer access"},
      {"NCCL_SHM_DISABLE", "NCCL cannot use shared host memory between processes"},
      {"NCCL_P2P_LEVEL", "NCCL uses peer access only up to this distance between GPUs"},
      {"NCCL_PROTO", "NCCL may use only these protocols (LL, LL128, Simple)"},
      {"NCCL_ALGO", "NCCL may use only these algorithms"},
      {"CUDA_DEVICE_MAX_CONNECTIONS",
       "the hardware queues per device: with few, copies and kernels of different streams wait for each other"},
      {"CUDA_VISIBLE_DEVICES", "which GPUs this process sees, and in what order"},
  };
  return all;
}

const GpuFacts* gpu_facts(const Machine& machine, int device) {
  for (const GpuFacts& g : machine.gpus)
    if (g.index == device) return &g;
  return nullptr;
}

bool shared_with_others(const Machine& machine, int device) {
  const GpuFacts* g = gpu_facts(machine, device);
  return g && g->other_processes > 0;
}

}  // namespace ferry::doctor
