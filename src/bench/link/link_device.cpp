// Device memory: a copy within one device, and copies between each pair of devices.
#include <fmt/format.h>

#include "bench/link/link_run.hpp"
#include "core/units.hpp"
#include "model/link_model.hpp"

namespace ferry::link {
namespace {

Trial device_copy_trial(LinkRun& run, Stream& destination_stream, Buffer& source, Buffer& destination,
                        std::uint64_t seed) {
  Trial t;
  t.prepare = [&] { run.checker.poison(destination_stream, destination); };
  t.enqueue = [&](Stream& s) { s.copy(destination.data(), source.data(), source.bytes()); };
  t.check = [&, seed] { return run.checker.matches(destination_stream, destination, seed); };
  return t;
}

}  // namespace

void measure_device_copy(LinkRun& run, int device) {
  const std::uint64_t bytes = run.config.device_copy_bytes;
  run.progress.step(fmt::format("device {}: device-to-device copy, {}", device, format_bytes(bytes)));
  auto stream = run.backend.make_stream(device);
  Buffer source = run.backend.allocate_device(device, bytes);
  Buffer destination = run.backend.allocate_device(device, bytes);
  const std::uint64_t seed = seed_for(30, device, bytes);
  run.checker.fill(*stream, source, seed);
  Row row = make_row("device_copy", {{"device", device}, {"bytes", as_param(bytes)}}, Metric::rate,
                     time_on_device(run.backend, *stream, run.config.bandwidth_repeat,
                                    device_copy_trial(run, *stream, source, destination, seed)),
                     static_cast<double>(bytes));
  const double memory_Bps = run.gpu(device).memory_bandwidth_Bps;
  if (memory_Bps > 0) {
    row.model = model::device_copy_Bps(memory_Bps);
    row.model_basis = fmt::format("half of {:.0f} GB/s memory (read + write)", memory_Bps / 1e9);
  }
  run.profile_of(device).device_copy_Bps = row.value();
  run.add(std::move(row));
}

void measure_peers(LinkRun& run) {
  const auto& devices = run.config.devices;
  if (devices.size() < 2) {
    run.skip("peer bandwidth and latency: needs 2 devices (--devices 0,1)");
    return;
  }
  const std::uint64_t bytes = run.config.peer_bytes;
  for (int from : devices) {
    for (int to : devices) {
      if (from == to) continue;
      run.progress.step(fmt::format("peer {} -> {}: {}", from, to, format_bytes(bytes)));
      const bool direct = run.backend.enable_peer_access(from, to) && run.backend.enable_peer_access(to, from);
      auto from_stream = run.backend.make_stream(from);
      auto to_stream = run.backend.make_stream(to);
      const Params pair = {{"from", from}, {"to", to}, {"access", direct ? "direct" : "through host"}};

      Buffer source = run.backend.allocate_device(from, bytes);
      Buffer destination = run.backend.allocate_device(to, bytes);
      const std::uint64_t seed = seed_for(40, from * 64 + to, bytes);
      run.checker.fill(*from_stream, source, seed);
      Params params = pair;
      params.emplace_back("bytes", as_param(bytes));
      Row bandwidth = make_row("peer_bandwidth", params, Metric::rate,
                               time_on_device(run.backend, *from_stream, run.config.bandwidth_repeat,
                                              device_copy_trial(run, *to_stream, source, destination, seed)),
                               static_cast<double>(bytes));
      const PeerFacts* facts = nullptr;
      for (const PeerFacts& p : run.machine.peers)
        if (p.from == from && p.to == to) facts = &p;
      if (facts && facts->nvlinks > 0 && model::nvlink_Bps_per_link(facts->nvlink_version) > 0) {
        bandwidth.model = facts->nvlinks * model::nvlink_Bps_per_link(facts->nvlink_version);
        bandwidth.model_basis = fmt::format("{} x NVLink{}", facts->nvlinks, facts->nvlink_version);
      } else if (run.pcie_Bps(from) > 0 && run.pcie_Bps(to) > 0) {
        bandwidth.model = std::min(run.pcie_Bps(from), run.pcie_Bps(to));
        bandwidth.model_basis = run.pcie_basis(from);
      }

      constexpr std::uint64_t latency_bytes = 8;
      Buffer small_source = run.backend.allocate_device(from, latency_bytes);
      Buffer small_destination = run.backend.allocate_device(to, latency_bytes);
      const std::uint64_t small_seed = seed_for(41, from * 64 + to, latency_bytes);
      run.checker.fill(*from_stream, small_source, small_seed);
      Row latency = make_row("peer_latency", pair, Metric::latency,
                             time_on_host(*from_stream, run.config.latency_repeat,
                                          device_copy_trial(run, *to_stream, small_source, small_destination, small_seed)));

      run.outcome.profile.peers.push_back({.from = from,
                                           .to = to,
                                           .direct_access = direct,
                                           .copy_Bps = bandwidth.value(),
                                           .latency_s = latency.stats().median});
      run.add(std::move(bandwidth));
      run.add(std::move(latency));
    }
  }
}

}  // namespace ferry::link
