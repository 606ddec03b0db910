#include "doctor/measure/fleet.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/progress.hpp"
#include "doctor/faults.hpp"
#include "doctor/judge/fleet.hpp"
#include "doctor/measure/fleet_nccl.hpp"
#include "doctor/measure/pass.hpp"
#include "transport/staged_pairs.hpp"

namespace ferry::doctor {
namespace {

// A turn is one GPU's pass (seconds on a GPU, under a minute on the emulator):
// a rank that has not come by then is stuck.
constexpr double turn_timeout_s = 600;
constexpr int pair_repetitions = 3;

nlohmann::json to_wire(const RankReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : r.findings) {
    nlohmann::json j = {{"check", f.check},       {"subject", f.subject},   {"verdict", static_cast<int>(f.verdict)},
                        {"measured", f.measured}, {"expected", f.expected}, {"basis", f.basis},
                        {"cause", f.cause},       {"action", f.action}};
    if (f.value) j["value"] = *f.value;
    if (f.model) j["model"] = *f.model;
    j["unit"] = static_cast<int>(f.unit);
    j["worse"] = static_cast<int>(f.worse);
    findings.push_back(std::move(j));
  }
  return {{"rank", r.rank},
          {"host", r.host},
          {"device", r.device},
          {"gpu", r.gpu},
          {"h2d", r.h2d_Bps},
          {"d2h", r.d2h_Bps},
          {"both", r.both_ways_Bps},
          {"copy", r.device_copy_Bps},
          {"findings", std::move(findings)}};
}

RankReport from_wire(const nlohmann::json& j) {
  RankReport r{.rank = j.at("rank"),
               .host = j.at("host"),
               .device = j.at("device"),
               .gpu = j.at("gpu"),
               .h2d_Bps = j.at("h2d"),
               .d2h_Bps = j.at("d2h"),
               .both_ways_Bps = j.at("both"),
               .device_copy_Bps = j.at("copy")};
  for (const nlohmann::json& f : j.at("findings")) {
    Finding finding{.check = f.at("check"),
                    .subject = f.at("subject"),
                    .verdict = static_cast<Verdict>(f.at("verdict").get<int>()),
                    .measured = f.at("measured"),
                    .expected = f.at("expected"),
                    .basis = f.at("basis"),
                    .cause = f.at("cause"),
                    .action = f.at("action"),
                    .unit = static_cast<Unit>(f.at("unit").get<int>()),
                    .worse = static_cast<Worse>(f.at("worse").get<int>())};
    if (f.contains("value")) finding.value = f.at("value").get<double>();
    if (f.contains("model")) finding.model = f.at("model").get<double>();
    r.findings.push_back(std::move(finding));
  }
  return r;
}

// The transport's timings of the pairs as the fleet's judgments take them.
std::vector<PairTiming> timings_of(const std::vector<transport::PairTime>& pairs) {
  std::vector<PairTiming> timings;
  for (const transport::PairTime& p : pairs)
    timings.push_back({.from = p.from,
                       .to = p.to,
                       .from_host = p.from_host,
                       .to_host = p.to_host,
                       .seconds = p.seconds,
                       .intact = p.intact});
  return timings;
}

}  // namespace

Fleet run_fleet(Backend& backend, World& world, const Machine& machine, int device, std::string_view fault,
                bool quiet) {
  std::string hook(fault);
  const FleetFaults faults = take_fleet_faults(hook);
  if (!hook.empty()) {  // refused on every rank before any turn, not on the first rank whose turn it is
    Inputs trial{.machine = machine};
    apply_fault(hook, trial);
  }
  const bool speaks = world.rank() == 0;
  const int turns = static_cast<int>(world.max(static_cast<std::int64_t>(world.local_rank()))) + 1;
  const Progress progress("doctor", speaks && !quiet);
  progress.expect(static_cast<std::size_t>(turns) + 1);

  Pass pass;
  for (int turn = 0; turn < turns; ++turn) {
    if (speaks) progress.step(fmt::format("local rank {} of every host: its GPU's pass", turn));
    if (world.local_rank() == turn) pass = run_pass(backend, machine, {device}, hook, Progress("doctor", false));
    world.barrier_sleeping(turn_timeout_s);
  }

  RankReport mine{.rank = world.rank(), .host = world.host(), .device = device, .findings = pass.findings};
  for (const GpuFacts& g : machine.gpus)
    if (g.index == device) mine.gpu = g.name;
  for (const model::DeviceProfile& p : pass.figures.devices)
    if (p.device == device) {
      mine.h2d_Bps = p.h2d_Bps;
      mine.d2h_Bps = p.d2h_Bps;
      mine.both_ways_Bps = p.bidirectional_Bps;
      mine.device_copy_Bps = p.device_copy_Bps;
    }
  if (faults.slow_rank == world.rank())
    for (double* rate : {&mine.h2d_Bps, &mine.d2h_Bps, &mine.both_ways_Bps, &mine.device_copy_Bps}) *rate /= 4;

  const std::vector<std::string> reports = world.gather(to_wire(mine).dump());

  if (speaks) progress.step("each pair of neighbouring ranks in turn, through pinned host memory and MPI, then NCCL");
  const bool gpu_timings = backend.capabilities().gpu_timings;
  // 64 MiB is on the plateau of PCIe and of a network; the emulator's copies are the CPU's, and 8 MiB is enough.
  const std::uint64_t pair_bytes = gpu_timings ? 64ull << 20 : 8ull << 20;
  const std::vector<transport::PairTime> pairs =
      transport::time_staged_pairs(backend, world, device, pair_bytes, pair_repetitions, faults.corrupt_pair);
  const NcclPairs nccl = time_nccl_pairs(backend, world, device, pair_bytes, pair_repetitions, faults.corrupt_pair);
  if (!speaks) return {};

  Fleet fleet;
  fleet.inputs.nccl_pairs = timings_of(nccl.pairs);
  fleet.inputs.nccl_messages = nccl.messages;
  fleet.inputs.nccl_skipped = nccl.skipped;
  fleet.inputs.gpu_timings = gpu_timings;
  fleet.inputs.pair_bytes = pair_bytes;
  for (const std::string& text : reports) fleet.inputs.ranks.push_back(from_wire(nlohmann::json::parse(text)));
  fleet.inputs.pairs = timings_of(pairs);
  fleet.findings = judge_fleet(fleet.inputs);
  return fleet;
}

}  // namespace ferry::doctor
