#include "bench/registry.hpp"

#include <algorithm>

namespace ferry {

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> all = {
      {"link", "the machine's ceilings, which every model builds on",
       "H2D/D2H/bidirectional bandwidth for pinned, pageable and mapped memory over a size sweep; zero-copy "
       "kernel reads and writes; small-copy latency; kernel launch, graph replay and stream-sync costs; "
       "persistent-kernel flag round trip; device copy bandwidth; peer bandwidth and latency per pair"},
      {"stream", "host <-> device streaming designs: how soon a chunk is back vs how fast the stream moves",
       "per-chunk latency (median, p99) and stream throughput of offload, chunked, zero-copy, multi-kernel "
       "pipeline and persistent producer/consumer designs over a chunk sweep, each output word verified, "
       "beside a model built from link's ceilings; `ferry tune stream` searches for a latency or throughput target"},
      {"overlap", "a vector add split into k sub-buffers: how much overlapping copies and kernels buys",
       "host wall time of c = a + b on the host, serially on the device and pipelined over k sub-buffers on several "
       "streams (k swept), every word checked, beside the serial sum and the pipelined bound from link's ceilings; "
       "`--trace` writes a Chrome trace of the overlap"},
      {"dispatch", "120 dependent kernels (bitonic sort) and the ladder of dispatch optimizations that removes their cost",
       "H2D + sort + D2H of 32768 keys (or a --keys sweep) per rung: baseline with a host wait per kernel, then "
       "preallocated events, no host sync, a graph, pinned memory, programmatic dependent launch, one persistent "
       "kernel and an on-chip sort; every output checked against std::sort, each rung's delta and model beside it"},
      {"beff", "HPCC effective bandwidth between devices, per transport: which path to use",
       "a ring of devices (or MPI ranks) exchanging messages of the 21 b_eff sizes (1 B .. 2 MiB) by ping-ping over "
       "p2p copy engine, p2p SM stores, NCCL, MPI through the host and CUDA-aware MPI; b(L) per size, b_eff per "
       "transport, one-way ping-pong latency, every message checked, beside the model L / (t_lat + L / B); "
       "`ferry model beff` predicts larger rings"},
      {"topo", "ping-ping bandwidth per topology against what the links promise, and what the host path costs",
       "pair (one way, both ways), ring, fully-connected and host-staged (device -> host -> host -> device) topologies "
       "over regular or irregular sizes, --rounds rounds per size each verified, min/median/max bandwidth; a "
       "pairwise bandwidth and latency matrix per transport; every topology's peak beside its theoretical peak "
       "(NVLink, PCIe, store-and-forward) and link's peer copies"},
  };
  return all;
}

const WorkloadInfo* find_workload(std::string_view name) {
  const auto& all = workloads();
  const auto it = std::find_if(all.begin(), all.end(), [&](const WorkloadInfo& w) { return w.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace ferry
