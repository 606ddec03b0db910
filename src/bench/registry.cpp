#include "bench/registry.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bench/beff/beff.hpp"
#include "bench/dispatch/bitonic.hpp"
#include "bench/dispatch/dispatch.hpp"
#include "bench/link/link.hpp"
#include "bench/stream/stream.hpp"
#include "bench/topo/topo.hpp"
#include "core/units.hpp"
#include "transport/transport.hpp"

namespace ferry {
namespace {

template <class Range, class Name>
std::vector<std::string> names_of(const Range& items, Name name) {
  std::vector<std::string> names;
  for (const auto& item : items) names.push_back(std::string(name(item)));
  return names;
}

std::vector<std::string> transport_names(const std::vector<transport::Kind>& kinds) {
  return names_of(kinds, [](transport::Kind k) { return transport::to_string(k); });
}

WorkloadInfo link_info() {
  return {"link", "the machine's ceilings, which every model builds on",
          "host <-> device bandwidth for pinned, pageable and mapped memory over a size sweep, zero-copy, latencies, "
          "dispatch and flag costs on each device, and peer copies, latencies and flags between each pair, every row "
          "checked; the ceilings the other workloads' models read",
          {{"sections (its tables)", names_of(link::sections(), [](const Section& s) { return s.id; })}}};
}

WorkloadInfo stream_info() {
  return {"stream", "host <-> device streaming designs: how soon a chunk is back vs how fast the stream moves",
          "per-chunk latency (median, p99) and stream throughput of each design over a chunk sweep, each output word "
          "verified, beside a model built from link's ceilings; `ferry tune stream` searches for a latency or "
          "throughput target",
          {{"designs (--design)",
            names_of(stream::all_designs(), [](stream::Design d) { return stream::to_string(d); })}}};
}

WorkloadInfo overlap_info() {
  return {"overlap", "a vector add split into k sub-buffers: how much overlapping copies and kernels buys",
          "host wall time of c = a + b on the host, serially on the device and pipelined over k sub-buffers on several "
          "streams (k swept), every word checked, beside the serial sum and the pipelined bound from link's ceilings; "
          "`--trace` writes a Chrome trace of the overlap",
          {}};
}

WorkloadInfo dispatch_info() {
  const dispatch::DispatchConfig defaults;
  const std::uint64_t keys = defaults.keys.front();
  const std::vector<std::string> rungs =
      names_of(dispatch::ladder, [](dispatch::Rung r) { return dispatch::plan(r).name; });
  return {"dispatch",
          fmt::format("{} dependent kernels (bitonic sort) and the ladder of dispatch optimizations that removes their "
                      "cost",
                      dispatch::bitonic_passes(keys).size()),
          fmt::format("H2D + sort + D2H of {} keys (or a --keys sweep) per rung, from a baseline with a host wait per "
                      "kernel to {} ({} rungs); every output checked against std::sort, each rung's delta and model "
                      "beside it",
                      keys, rungs.back(), rungs.size()),
          {{"rungs (--rungs)", rungs}}};
}

WorkloadInfo beff_info() {
  const std::vector<std::uint64_t> sizes = beff::definition_sizes();
  return {"beff", "HPCC effective bandwidth between devices, per transport: which path to use",
          fmt::format("a ring of devices (or MPI ranks) exchanging messages of the {} b_eff sizes ({} .. {}) by "
                      "ping-ping over each transport; b(L) per size, b_eff per transport, one-way ping-pong latency, "
                      "messages checked word by word on arrival (docs/beff.md says which), beside the model "
                      "L / (t_lat + L / B); `ferry model beff` predicts larger rings",
                      sizes.size(), format_bytes(sizes.front()), format_bytes(sizes.back())),
          {{"transports (--transport)", transport_names(beff::BeffConfig{}.transports)}}};
}

WorkloadInfo topo_info() {
  std::vector<transport::Kind> direct;  // the host's path is a topology of its own
  for (transport::Kind kind : transport::all_kinds())
    if (!transport::through_host(kind)) direct.push_back(kind);
  return {"topo", "ping-ping bandwidth per topology against what the links promise, and what the host path costs",
          "each topology over regular or irregular sizes, --rounds rounds per size each verified, min/median/max "
          "bandwidth; a pairwise bandwidth and latency matrix per transport; every topology's peak beside its "
          "theoretical peak (NVLink, PCIe, store-and-forward) and link's peer copies",
          {{"topologies (--topology)",
            names_of(topo::all_topologies(), [](topo::Topology t) { return topo::to_string(t); })},
           {"direct transports (--transport)", transport_names(direct)}}};
}

}  // namespace

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> all = {link_info(),     stream_info(), overlap_info(),
                                                dispatch_info(), beff_info(),   topo_info()};
  return all;
}

const WorkloadInfo* find_workload(std::string_view name) {
  const auto& all = workloads();
  const auto it = std::find_if(all.begin(), all.end(), [&](const WorkloadInfo& w) { return w.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace ferry
