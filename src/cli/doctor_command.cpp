#include "cli/doctor_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "backend/select.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "doctor/faults.hpp"
#include "doctor/fleet_report.hpp"
#include "doctor/judge/pass_time.hpp"
#include "doctor/measure/fleet.hpp"
#include "doctor/measure/pass.hpp"
#include "doctor/report.hpp"
#include "doctor/thresholds.hpp"
#include "run/dry_run.hpp"
#include "run/run_results.hpp"

namespace ferry {
namespace {

const std::string default_budget = fmt::format("{:g}s", doctor::pass_time_budget_s);

struct DoctorOptions {
  RunOptions run;
  std::string budget = default_budget;
};

int exit_code_of(const std::vector<doctor::Finding>& findings) {
  return doctor::any_fail(findings) ? static_cast<int>(ExitCode::verification_failed) : static_cast<int>(ExitCode::ok);
}

// Under mpirun: every rank's pass on its GPU and the pairs between them; rank 0 prints and writes for all.
int run_fleet_doctor(const DoctorOptions& o, Backend& backend, World& w, int device, const std::string& fault,
                     double budget_s, std::chrono::steady_clock::time_point started,
                     const std::vector<std::string>& command_line, std::ostream& out) {
  const bool speaks = w.rank() == 0;
  std::ostream silent(nullptr);
  Results results = start_results(backend, command_line, speaks ? out : silent);
  doctor::Fleet fleet = doctor::run_fleet(backend, w, results.machine, device, fault, o.run.quiet);
  int code = 0;
  if (speaks) {
    const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fleet.findings.push_back(doctor::judge_pass_time(took_s, budget_s));
    out << doctor::render_fleet(fleet.inputs, fleet.findings);
    const std::vector<doctor::Finding> all = doctor::all_findings(fleet.inputs, fleet.findings);
    results.workloads.push_back(doctor::findings_result(all));
    write_outputs(results, o.run.outputs, out);  // the findings alone: each rank's link rows stay with it
    code = exit_code_of(all);
  }
  return w.broadcast(code);
}

int run_doctor(const DoctorOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  const double budget_s = parse_duration(o.budget);
  if (o.run.quick) throw UsageError("doctor's pass is short already: --quick is for `ferry run`");
  const auto started = std::chrono::steady_clock::now();
  const std::unique_ptr<Backend> backend = make_backend(o.run.backend);
  World& w = world();
  const std::vector<int> devices = participant_devices(*backend, o.run, w);
  const char* hook = std::getenv(doctor::fault_variable);
  std::string fault = hook ? hook : "";
  if (o.run.dry_run) {
    const link::LinkConfig config = doctor::pass_config(backend->capabilities(), devices);
    link::validate(*backend, config);
    if (w.rank() != 0) return static_cast<int>(ExitCode::ok);  // every rank's plan is rank 0's, on its own GPU
    const Machine machine = backend->describe_machine();
    if (w.distributed())
      out << fmt::format("fleet mode, {} ranks: each rank runs the pass below on its GPU, the ranks of a host in "
                         "turn; then each pair of neighbouring ranks in turn moves a message through pinned host "
                         "memory and MPI\n",
                         w.size());
    return print_dry_run(machine, {{"link (doctor's pass)", link::plan_run(*backend, config)}},
                         dry_run_pace(machine, nullptr, devices.front()), out);
  }

  if (w.distributed())
    return run_fleet_doctor(o, *backend, w, devices.front(), fault, budget_s, started, command_line, out);
  if (std::string local = fault; doctor::take_fleet_faults(local).any())
    throw UsageError(fmt::format("{}: '{}' has conditions of fleet mode (slow-rank, corrupt-pair), which "
                                 "apply under mpirun",
                                 doctor::fault_variable, fault));

  Results results = start_results(*backend, command_line, out);
  doctor::Pass pass = doctor::run_pass(*backend, results.machine, devices, fault, Progress("doctor", !o.run.quiet));
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  pass.findings.push_back(doctor::judge_pass_time(took_s, budget_s));

  out << doctor::render_findings(pass.findings);
  results.workloads.push_back(std::move(pass.link));
  results.workloads.push_back(doctor::findings_result(pass.findings));
  write_outputs(results, o.run.outputs, out);  // the CSV holds link's rows; the findings are in the JSON
  return exit_code_of(pass.findings);
}

}  // namespace

void add_doctor_command(const Commands& c) {
  auto options = std::make_shared<DoctorOptions>();
  CLI::App* doctor =
      c.app.add_subcommand("doctor",
                           "is this machine moving data as fast as it should, and if not, why: a verdict per check");
  doctor->footer(
      "Runs a short pass of link on every GPU (or those --devices names) and every pair of them, reads the PCIe "
      "links while a copy runs, where the process and the GPUs sit (NUMA), and the variables that change data "
      "paths; then prints one row per check and subject: what was measured, what was expected and from what, and "
      "the verdict (OK, WARN, FAIL), with the cause and what to do below. On the emulator its timings are CPU "
      "timings: doctor judges facts and checks, not speed. Exit 0 when nothing is FAIL, 1 when something is "
      "(docs/doctor.md).");
  add_run_options(*doctor, options->run);
  doctor
      ->add_option("--budget", options->budget,
                   fmt::format("how long the pass may take; longer is a WARN (default {})", default_budget))
      ->default_val(default_budget);
  doctor->callback([&action = c.action, &out = c.out, options, &command_line = c.command_line] {
    action = [&out, options, &command_line] { return run_doctor(*options, command_line, out); };
  });
}

}  // namespace ferry
