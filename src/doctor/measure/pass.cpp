#include "doctor/measure/pass.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/check.hpp"
#include "doctor/facts.hpp"
#include "doctor/faults.hpp"
#include "doctor/judge/diagnose.hpp"
#include "doctor/judge/nccl.hpp"
#include "doctor/measure/nccl.hpp"
#include "doctor/measure/read_facts.hpp"

namespace ferry::doctor {
namespace {

int checked_rows(const WorkloadResult& result) {
  return static_cast<int>(std::count_if(result.rows.begin(), result.rows.end(),
                                        [](const Row& r) { return r.check != Check::not_applicable; }));
}

}  // namespace

link::LinkConfig pass_config(const Capabilities& capabilities, const std::vector<int>& devices) {
  link::LinkConfig c = link::LinkConfig::defaults(capabilities, true);
  c.devices = devices;
  c.host_memory = {MemoryKind::pinned, MemoryKind::pageable};
  // Two sizes on the plateau are enough to judge a rate; the sweep below it is link's business.
  if (capabilities.gpu_timings) {
    c.sweep_bytes = {64ull << 20, 256ull << 20};
    // The latencies are held against full link runs (doctor/references.cpp): measured as those were. A quick
    // run's 200 kernels a sample add 1/200 of a sync to each kernel, about 5% of a graph's; this costs < 0.5 s a GPU.
    const link::LinkConfig full = link::LinkConfig::defaults(capabilities, false);
    c.kernels_per_sample = full.kernels_per_sample;
    c.dispatch_repeat = full.dispatch_repeat;
    c.flag_round_trips = full.flag_round_trips;
  }
  return c;
}

Pass run_pass(Backend& backend, const Machine& machine, const std::vector<int>& devices, std::string_view fault,
              const Progress& progress) {
  if (!fault.empty()) {  // a bad hook is refused before anything runs
    Inputs trial{.machine = machine};
    apply_fault(fault, trial);
  }
  Inputs in{.machine = machine, .devices = devices};

  link::LinkConfig config = pass_config(backend.capabilities(), devices);
  // link's own hook (FERRY_FAULT_CORRUPT_OUTPUT=SECTION[@N]) makes the verification check fail.
  if (const char* hook = std::getenv(corrupt_output_variable)) link::parse_corruption(hook, config);
  link::validate(backend, config);
  link::LinkOutcome outcome = link::run(backend, machine, config, progress);
  read_links_under_load(backend, devices, in.machine);
  in.idle_pcie_traffic = read_idle_pcie_traffic(backend, devices);
  in.figures = outcome.profile;
  in.verification_passed = outcome.result.passed();
  in.checked_rows = checked_rows(outcome.result);
  in.environment = read_environment();
  in.placement = read_placement(backend, in.machine, devices);
  // NCCL against p2p-ce on each pair, after link's copies and the idle reading, so each runs alone.
  const std::vector<NcclPair> nccl_pairs = nccl_pass(backend, devices, fault, progress);
  if (!fault.empty()) apply_fault(fault, in);
  std::vector<Finding> findings = diagnose(in);
  for (Finding& f : judge_nccl(nccl_pairs, in.environment)) findings.push_back(std::move(f));
  return {std::move(outcome.result), std::move(findings), in.figures};
}

}  // namespace ferry::doctor
