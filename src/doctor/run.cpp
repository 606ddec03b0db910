#include "doctor/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/results_json.hpp"
#include "doctor/baseline.hpp"
#include "doctor/faults.hpp"
#include "doctor/fleet_report.hpp"
#include "doctor/judge/pass_time.hpp"
#include "doctor/measure/fleet.hpp"
#include "doctor/measure/pass.hpp"
#include "doctor/prometheus.hpp"
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
int fleet_mode(const Driver& driver, const Participants& placed, const std::string& fault, const Budget& budget,
               const Integrations& integrations) {
  if (integrations.of_one_node())
    throw UsageError("--prometheus, --baseline and --save-baseline speak for one node, and under mpirun rank 0 "
                     "speaks for the fleet: run `ferry doctor` with them on each node, without mpirun");
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
    if (integrations.verdict_line) *integrations.verdict_line << verdict_line(all) << "\n";
    return exit_code_of(all);
  });
}

// --save-baseline: the results, when nothing FAILs; else the file is left as it was, and the output says why.
void save_baseline(const Results& results, const std::vector<Finding>& findings, const std::string& path,
                   std::ostream& out) {
  const auto failed =
      std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.verdict == Verdict::fail; });
  if (failed != findings.end()) {
    out << fmt::format("baseline: not saved to {}: {} ({}) is FAIL, and a baseline is a healthy run\n", path,
                       failed->check, failed->subject);
    return;
  }
  if (std::string why = save_output(path, results_to_json(results), "baseline", out); !why.empty())
    throw RuntimeFailure(why);
}

int one_process(const Driver& driver, const std::vector<int>& devices, const std::string& fault, const Budget& budget,
                const Integrations& integrations) {
  if (std::string local = fault; take_fleet_faults(local).any())
    throw UsageError(fmt::format("{}: '{}' has conditions of fleet mode (slow-rank, corrupt-pair), which "
                                 "apply under mpirun",
                                 fault_variable, fault));
  // Refused before anything is measured or written.
  const std::optional<Baseline> baseline =
      integrations.baseline_path.empty()
          ? std::nullopt
          : std::optional(read_baseline(integrations.baseline_path, driver.backend().describe_machine(), devices));
  Results results = driver.start();
  Pass pass = run_pass(driver.backend(), results.machine, devices, fault, driver.progress("doctor"));
  return driver.finish([&](std::ostream& out) {
    pass.findings.push_back(pass_time(budget));
    if (baseline) {
      std::vector<Finding> compared =
          compare_with_baseline(pass.findings, results.machine, *baseline, integrations.baseline_margin);
      pass.findings.insert(pass.findings.end(), compared.begin(), compared.end());
    }
    out << render_findings(pass.findings);
    results.workloads.push_back(std::move(pass.link));
    results.workloads.push_back(findings_result(pass.findings));
    write_outputs(results, driver.options().outputs, out);  // the CSV holds link's rows; the findings are in the JSON
    if (!integrations.prometheus_path.empty()) {
      const double now_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      if (std::string why = save_output(integrations.prometheus_path,
                                        prometheus_text(pass.findings, results.machine, now_s), "prometheus", out);
          !why.empty())
        throw RuntimeFailure(why);
    }
    if (!integrations.save_baseline_path.empty())
      save_baseline(results, pass.findings, integrations.save_baseline_path, out);
    if (integrations.verdict_line) *integrations.verdict_line << verdict_line(pass.findings) << "\n";
    return exit_code_of(pass.findings);
  });
}

}  // namespace

int run(const Driver& driver, const Budget& budget, const Integrations& integrations) {
  RunOptions placing = driver.options();
  placing.allow_shared_gpu = true;  // doctor runs, and a finding names the ranks
  const Participants placed = participant_devices(driver.backend(), placing, driver.world());
  const std::vector<int>& devices = placed.devices;
  const char* hook = std::getenv(fault_variable);
  const std::string fault = hook ? hook : "";
  if (driver.options().dry_run) return dry_run(driver, devices);
  if (driver.world().distributed()) return fleet_mode(driver, placed, fault, budget, integrations);
  return one_process(driver, devices, fault, budget, integrations);
}

}  // namespace ferry::doctor
