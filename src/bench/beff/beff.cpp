#include "bench/beff/beff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "bench/beff/beff_run.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "transport/transport.hpp"

namespace ferry::beff {
WorkloadResult run(Backend& backend, World& world, const BeffConfig& config,
                   const std::vector<model::PeerProfile>& link_peers, const Progress& progress) {
  // Under mpirun each rank drives one device and is one participant; in one process every device is.
  const bool one_per_rank = world.distributed();
  const int participants = participants_of(world, config);
  validate(backend, config, participants);
  const std::vector<int> devices = one_per_rank ? std::vector<int>{config.devices.front()} : config.devices;
  const std::uint64_t largest = config.sizes().back();
  ExchangeAreas areas(backend, devices, one_per_rank ? world.rank() : 0, participants, config.area(), largest, 1,
                      transport::run_area_memory(world));
  const std::vector<Member> members = gather_members(world, areas.group());

  // A rank that waits longer than any single step may take is waiting for a rank that is gone.
  world.watch(2 * config.transport.timeout_s);
  // Every rank must agree to run a transport: one that cannot would leave the others waiting.
  std::vector<std::string> skipped;
  for (transport::Kind kind : config.transports)
    skipped.push_back(transport::unavailable_anywhere(kind, backend, world, areas.group()));
  // Every rank found the same transports unavailable, so every rank refuses alike.
  if (std::none_of(skipped.begin(), skipped.end(), [](const std::string& why) { return why.empty(); })) {
    world.stop_watching();
    std::vector<std::string> reasons;
    for (std::size_t t = 0; t < skipped.size(); ++t)
      reasons.push_back(fmt::format("{}: {}", to_string(config.transports[t]), skipped[t]));
    throw UsageError(nothing_measured("beff", "transport", reasons));
  }
  BeffConfig runnable = config;  // the progress total: the plan of the transports every rank can run
  runnable.transports.clear();
  for (std::size_t t = 0; t < config.transports.size(); ++t)
    if (skipped[t].empty()) runnable.transports.push_back(config.transports[t]);
  progress.expect(plan_run(runnable, participants).steps.size());
  BeffConfig described = config;
  described.area_bytes = config.area();
  std::vector<TransportRecord> records;
  for (std::size_t t = 0; t < config.transports.size(); ++t) {
    const transport::Kind kind = config.transports[t];
    // A transport whose areas come from elsewhere (NCCL's allocator) gets its own, of the same size on the same devices.
    std::optional<ExchangeAreas> own =
        skipped[t].empty() ? areas.on_memory(backend, transport::area_memory(kind, world)) : std::nullopt;
    records.push_back(measure_transport(backend, world, config, kind, skipped[t], own ? *own : areas, progress));
    progress.keep_rows_made_by([&] { return make_result(described, members, records, link_peers); });
  }
  world.stop_watching();

  if (world.rank() != 0) {
    WorkloadResult share;
    share.workload = "beff";
    return share;
  }
  WorkloadResult result = make_result(described, members, records, link_peers);
  if (!backend.capabilities().gpu_timings)
    result.notes.push_back("emulator: messages are checked as on a GPU, but the timings are CPU timings");
  return result;
}

}  // namespace ferry::beff
