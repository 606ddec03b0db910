#include "cli/doctor_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "backend/select.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "run/doctor.hpp"
#include "run/dry_run.hpp"
#include "run/run_results.hpp"

namespace ferry {
namespace {

struct DoctorOptions {
  RunOptions run;
  std::string budget = "60s";
};

// Every GPU unless --device or --devices names some.
std::vector<int> doctor_devices(const Backend& backend, const RunOptions& o) {
  if (!o.device.empty() || !o.devices.empty()) return selected_devices(o);
  std::vector<int> all;
  for (int d = 0; d < backend.device_count(); ++d) all.push_back(d);
  return all;
}

int run_doctor(const DoctorOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  const double budget_s = parse_duration(o.budget);
  if (o.run.quick) throw UsageError("doctor's pass is short already: --quick is for `ferry run`");
  const auto started = std::chrono::steady_clock::now();
  const std::unique_ptr<Backend> backend = make_backend(o.run.backend);
  const std::vector<int> devices = doctor_devices(*backend, o.run);
  const char* fault = std::getenv(doctor::fault_variable);
  if (o.run.dry_run) {
    const link::LinkConfig config = doctor::pass_config(backend->capabilities(), devices);
    link::validate(*backend, config);
    const Machine machine = backend->describe_machine();
    return print_dry_run(machine, {{"link (doctor's pass)", link::plan_run(*backend, config)}},
                         dry_run_pace(machine, nullptr, devices.front()), out);
  }

  Results results = start_results(*backend, command_line, out);
  doctor::Pass pass =
      doctor::run_pass(*backend, results.machine, devices, fault ? fault : "", Progress("doctor", !o.run.quiet));
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  doctor::Finding timing{.check = "pass time", .subject = "host", .value = took_s, .model = budget_s};
  timing.measured = fmt::format("{:.1f} s", took_s);
  timing.expected = fmt::format("<= {:.0f} s", budget_s);
  timing.basis = "--budget";
  timing.verdict = took_s <= budget_s ? doctor::Verdict::ok : doctor::Verdict::warn;
  if (timing.verdict == doctor::Verdict::warn) {
    timing.cause = "the pass took longer than its budget: a slow or busy machine, or many GPUs";
    timing.action = "select fewer GPUs (--devices) or raise --budget";
  }
  pass.findings.push_back(std::move(timing));

  out << doctor::render_findings(pass.findings);
  results.workloads.push_back(std::move(pass.link));
  results.workloads.push_back(doctor::findings_result(pass.findings));
  write_outputs(results, o.run.outputs, out);  // the CSV holds link's rows; the findings are in the JSON
  return doctor::any_fail(pass.findings) ? static_cast<int>(ExitCode::verification_failed)
                                         : static_cast<int>(ExitCode::ok);
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
  doctor->add_option("--budget", options->budget, "how long the pass may take; longer is a WARN (default 60s)")
      ->default_val("60s");
  doctor->callback([&action = c.action, &out = c.out, options, &command_line = c.command_line] {
    action = [&out, options, &command_line] { return run_doctor(*options, command_line, out); };
  });
}

}  // namespace ferry
