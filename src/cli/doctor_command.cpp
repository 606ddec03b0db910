#include "cli/doctor_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "cli/command_files.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "doctor/run.hpp"
#include "doctor/thresholds.hpp"
#include "run/driver.hpp"

namespace ferry {
namespace {

const std::string default_budget = fmt::format("{:g}s", doctor::pass_time_budget_s);

struct DoctorOptions {
  RunOptions run;
  std::string budget = default_budget;
  std::string prometheus;
  std::string baseline;
  std::string baseline_margin = "10%";
  std::string save_baseline;
};

int run_doctor(const DoctorOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  const double budget_s = parse_duration(o.budget);
  if (o.run.quick) throw UsageError("doctor's pass is short already: --quick is for `ferry run`");
  const doctor::Integrations integrations{.verdict_line = o.run.quiet ? &out : nullptr,
                                          .prometheus_path = o.prometheus,
                                          .baseline_path = o.baseline,
                                          .baseline_margin =
                                              parse_percent_share(o.baseline_margin, "--baseline-margin"),
                                          .save_baseline_path = o.save_baseline};
  const auto started = std::chrono::steady_clock::now();  // the pass's time counts the backend's start
  std::ostream silent(nullptr);                           // --quiet: the verdict line alone
  const Driver driver(o.run, command_line, o.run.quiet ? silent : out);
  return doctor::run(driver, {.seconds = budget_s, .started = started}, integrations);
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
      "timings: doctor judges facts and checks, not speed. Exit 0 when nothing is FAIL (OK or WARN), 1 when something "
      "is, 2 for bad input, 3 when a call failed. --quiet prints one line a scheduler can keep as a node's reason; "
      "--prometheus writes node_exporter's textfile; --baseline holds every figure against this node's own earlier "
      "run (docs/doctor.md).");
  add_run_options(*doctor, options->run);
  // The run options' --quick is refused (doctor's pass is short already): out of the help, so help offers only
  // what doctor takes, and still parsed, so that giving it says why instead of "not expected".
  doctor->get_option("--quick")->group("");
  doctor
      ->add_option("--budget", options->budget,
                   fmt::format("how long the pass may take; longer is a WARN (default {})", default_budget))
      ->default_val(default_budget);
  doctor->get_option("--quiet")->description(
      "print one line and nothing else: the verdict, the first FAIL (else WARN) with what was measured and "
      "expected, and the count of each verdict; the line a scheduler keeps as a node's reason");
  doctor
      ->add_option("--prometheus", options->prometheus,
                   "write every verdict and figure in Prometheus' text format, for node_exporter's textfile "
                   "collector (labels gpu, UUID, Hostname as dcgm-exporter spells them)")
      ->check(writable_file("--prometheus"));
  doctor
      ->add_option("--baseline", options->baseline,
                   "an earlier doctor results file of this node (--json or --save-baseline): each figure more than "
                   "--baseline-margin worse than there is a WARN; one from other GPUs (by UUID) is refused")
      ->check(input_file("--baseline"));
  doctor
      ->add_option("--baseline-margin", options->baseline_margin,
                   "how much worse than its baseline a figure may be before it is a WARN (default 10%)")
      ->default_val("10%");
  doctor
      ->add_option("--save-baseline", options->save_baseline,
                   "write this run's results here as a baseline, only when nothing is FAIL (else the file is left "
                   "as it was)")
      ->check(writable_file("--save-baseline"));
  c.on_chosen(*doctor,
              [options](const auto& command_line, auto& out) { return run_doctor(*options, command_line, out); });
}

}  // namespace ferry
