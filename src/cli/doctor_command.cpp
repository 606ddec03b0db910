#include "cli/doctor_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>

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
};

int run_doctor(const DoctorOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  const double budget_s = parse_duration(o.budget);
  if (o.run.quick) throw UsageError("doctor's pass is short already: --quick is for `ferry run`");
  const auto started = std::chrono::steady_clock::now();  // the pass's time counts the backend's start
  const Driver driver(o.run, command_line, out);
  return doctor::run(driver, {.seconds = budget_s, .started = started});
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
  // The run options' --quick is refused (doctor's pass is short already): out of the help, so help offers only
  // what doctor takes, and still parsed, so that giving it says why instead of "not expected".
  doctor->get_option("--quick")->group("");
  doctor
      ->add_option("--budget", options->budget,
                   fmt::format("how long the pass may take; longer is a WARN (default {})", default_budget))
      ->default_val(default_budget);
  c.on_chosen(*doctor,
              [options](const auto& command_line, auto& out) { return run_doctor(*options, command_line, out); });
}

}  // namespace ferry
