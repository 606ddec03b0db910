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

namespace {

// One peer copy each way at once, timed on `from`'s stream: the second copy
// is forked off it and joined back, so the events span both.
Trial both_ways_trial(LinkRun& run, Stream& from_stream, Stream& to_stream, Event& fork, Event& join, Buffer& a_source,
                      Buffer& a_destination, Buffer& b_source, Buffer& b_destination, std::uint64_t a_seed,
                      std::uint64_t b_seed) {
  Trial t;
  t.prepare = [&] {
    run.checker.poison(to_stream, a_destination);
    run.checker.poison(from_stream, b_destination);
  };
  t.enqueue = [&](Stream& s) {
    s.record(fork);
    to_stream.wait(fork);
    s.copy(a_destination.data(), a_source.data(), a_source.bytes());
    to_stream.copy(b_destination.data(), b_source.data(), b_source.bytes());
    to_stream.record(join);
    s.wait(join);
  };
  t.check = [&, a_seed, b_seed] {
    const bool a = run.checker.matches(to_stream, a_destination, a_seed);
    const bool b = run.checker.matches(from_stream, b_destination, b_seed);
    return a && b;
  };
  return t;
}

const PeerFacts* peer_facts(const LinkRun& run, int from, int to) {
  for (const PeerFacts& p : run.machine.peers)
    if (p.from == from && p.to == to) return &p;
  return nullptr;
}

// The link's theoretical one-way rate: NVLinks where NVML counts them, else the slower PCIe.
void set_peer_model(LinkRun& run, Row& row, int from, int to, double directions) {
  const PeerFacts* facts = peer_facts(run, from, to);
  if (facts && facts->nvlinks > 0 && model::nvlink_Bps_per_link(facts->nvlink_version) > 0) {
    row.model = directions * facts->nvlinks * model::nvlink_Bps_per_link(facts->nvlink_version);
    row.model_basis = fmt::format("{} x NVLink{}{}", facts->nvlinks, facts->nvlink_version,
                                  directions > 1 ? ", both directions" : "");
  } else if (run.pcie_Bps(from) > 0 && run.pcie_Bps(to) > 0) {
    row.model = directions * std::min(run.pcie_Bps(from), run.pcie_Bps(to));
    row.model_basis = run.pcie_basis(from) + (directions > 1 ? ", both directions" : "");
  }
}

void measure_peers_both_ways(LinkRun& run) {
  const auto& devices = run.config.devices;
  const std::uint64_t bytes = run.config.peer_bytes;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    for (std::size_t j = i + 1; j < devices.size(); ++j) {
      const int from = devices[i], to = devices[j];
      run.progress.step(fmt::format("peer {} <-> {}: {} each way at once", from, to, format_bytes(bytes)));
      auto from_stream = run.backend.make_stream(from);
      auto to_stream = run.backend.make_stream(to);
      auto fork = run.backend.make_event(from), join = run.backend.make_event(to);
      Buffer a_source = run.backend.allocate_device(from, bytes), a_destination = run.backend.allocate_device(to, bytes);
      Buffer b_source = run.backend.allocate_device(to, bytes), b_destination = run.backend.allocate_device(from, bytes);
      const std::uint64_t a_seed = seed_for(42, from * 64 + to, bytes), b_seed = seed_for(42, to * 64 + from, bytes);
      run.checker.fill(*from_stream, a_source, a_seed);
      run.checker.fill(*to_stream, b_source, b_seed);
      Row row = make_row("peer_bidirectional", {{"from", from}, {"to", to}, {"bytes", as_param(bytes)}}, Metric::rate,
                         time_on_device(run.backend, *from_stream, run.config.bandwidth_repeat,
                                        both_ways_trial(run, *from_stream, *to_stream, *fork, *join, a_source,
                                                        a_destination, b_source, b_destination, a_seed, b_seed)),
                         2.0 * static_cast<double>(bytes));
      set_peer_model(run, row, from, to, 2);
      for (model::PeerProfile& p : run.outcome.profile.peers)
        if ((p.from == from && p.to == to) || (p.from == to && p.to == from)) p.bidirectional_Bps = row.value();
      run.add(std::move(row));
    }
  }
}

}  // namespace

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
      set_peer_model(run, bandwidth, from, to, 1);

      constexpr std::uint64_t latency_bytes = 8;
      Buffer small_source = run.backend.allocate_device(from, latency_bytes);
      Buffer small_destination = run.backend.allocate_device(to, latency_bytes);
      const std::uint64_t small_seed = seed_for(41, from * 64 + to, latency_bytes);
      run.checker.fill(*from_stream, small_source, small_seed);
      Trial small = device_copy_trial(run, *to_stream, small_source, small_destination, small_seed);
      Params host_clock = pair, device_clock = pair;
      host_clock.emplace_back("clock", "host: copy + sync");
      device_clock.emplace_back("clock", "device: events");
      Row latency = make_row("peer_latency", host_clock, Metric::latency,
                             time_on_host(*from_stream, run.config.latency_repeat, small));
      Row engine = make_row("peer_latency", device_clock, Metric::latency,
                            time_on_device(run.backend, *from_stream, run.config.latency_repeat, small));

      run.outcome.profile.peers.push_back({.from = from,
                                           .to = to,
                                           .direct_access = direct,
                                           .copy_Bps = bandwidth.value(),
                                           .latency_s = latency.stats().median,
                                           .copy_engine_latency_s = engine.stats().median});
      run.add(std::move(bandwidth));
      run.add(std::move(latency));
      run.add(std::move(engine));
    }
  }
  measure_peers_both_ways(run);
}

}  // namespace ferry::link
