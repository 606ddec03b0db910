#include "doctor/run.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "doctor/faults.hpp"
#include "doctor/fleet_report.hpp"
#include "doctor/judge/pass_time.hpp"
#include "doctor/measure/fleet.hpp"
#include "doctor/measure/pass.hpp"
#include "doctor/report.hpp"
#include "run/dry_run.hpp"
#include "run/run_results.hpp"

namespace ferry::doctor {
namespace {

int exit_code_of(const std::vector<Finding>& findings) {
  return any_fail(findings) ? static_cast<int>(ExitCode::verification_failed) : static_cast<int>(ExitCode::ok);
}

// Ranks that share a GPU: the pass runs (the ranks of a host take turns), but a job placed so shares each GPU's
// copy engines and memory between its ranks.
Finding shared_gpus(const std::string& shared) {
  return {.check = "a GPU per rank",
          .subject = "ranks",
          .verdict = Verdict::warn,
          .measured = shared,
          .expected = "each rank on a GPU of its own",
          .basis = "the GPU each rank chose, gathered from every rank",
          .cause = "more ranks on a host than it has GPUs, or --devices naming one twice: ranks that share a GPU "
                   "measure each other's traffic, about half of what each would alone",
          .action = "start one rank per GPU, or name each rank's GPU with --devices"};
}

Finding pass_time(const Budget& budget) {
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - budget.started).count();
  return judge_pass_time(took_s, budget.seconds);
}

int dry_run(const Driver& driver, const std::vector<int>& devices) {
  Backend& backend = driver.backend();
  const link::LinkConfig config = pass_config(backend.capabilities(), devices);
  link::validate(backend, config);
  return driver.dry_run([&](std::ostream& out) {  // every rank's plan is rank 0's, on its own GPU
    const Machine machine = backend.describe_machine();
    if (driver.world().distributed())
      out << fmt::format("fleet mode, {} ranks: each rank runs the pass below on its GPU, the ranks of a host in "
                         "turn; then each pair of neighbouring ranks in turn moves a message through pinned host "
                         "memory and MPI\n",
                         driver.world().size());
    return print_dry_run(machine, {{"link (doctor's pass)", link::plan_run(backend, config)}},
                         dry_run_pace(machine, nullptr, devices.front()), out);
  });
}

// Under mpirun: every rank's pass on its GPU and the pairs between them.
int fleet_mode(const Driver& driver, const Participants& placed, const std::string& fault, const Budget& budget) {
  Results results = driver.start();
  Fleet fleet = run_fleet(driver.backend(), driver.world(), results.machine, placed.devices.front(), fault,
                          driver.options().quiet);
  return driver.finish([&](std::ostream& out) {
    if (!placed.shared.empty()) fleet.findings.push_back(shared_gpus(placed.shared));
    fleet.findings.push_back(pass_time(budget));
    out << render_fleet(fleet.inputs, fleet.findings);
    const std::vector<Finding> all = all_findings(fleet.inputs, fleet.findings);
    results.workloads.push_back(findings_result(all));
    write_outputs(results, driver.options().outputs, out);  // the findings alone: each rank's link rows stay with it
    return exit_code_of(all);
  });
}

int one_process(const Driver& driver, const std::vector<int>& devices, const std::string& fault, const Budget& budget) {
  if (std::string local = fault; take_fleet_faults(local).any())
    throw UsageError(fmt::format("{}: '{}' has conditions of fleet mode (slow-rank, corrupt-pair), which "
                                 "apply under mpirun",
                                 fault_variable, fault));
  Results results = driver.start();
  Pass pass = run_pass(driver.backend(), results.machine, devices, fault, driver.progress("doctor"));
  return driver.finish([&](std::ostream& out) {
    pass.findings.push_back(pass_time(budget));
    out << render_findings(pass.findings);
    results.workloads.push_back(std::move(pass.link));
    results.workloads.push_back(findings_result(pass.findings));
    write_outputs(results, driver.options().outputs, out);  // the CSV holds link's rows; the findings are in the JSON
    return exit_code_of(pass.findings);
  });
}

}  // namespace

int run(const Driver& driver, const Budget& budget) {
  RunOptions placing = driver.options();
  placing.allow_shared_gpu = true;  // doctor runs, and a finding names the ranks
  const Participants placed = participant_devices(driver.backend(), placing, driver.world());
  const std::vector<int>& devices = placed.devices;
  const char* hook = std::getenv(fault_variable);
  const std::string fault = hook ? hook : "";
  if (driver.options().dry_run) return dry_run(driver, devices);
  if (driver.world().distributed()) return fleet_mode(driver, placed, fault, budget);
  return one_process(driver, devices, fault, budget);
}

}  // namespace ferry::doctor
