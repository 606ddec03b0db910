#include "doctor/judge/latency.hpp"

#include <fmt/format.h>

#include <string>

#include "core/text.hpp"
#include "core/units.hpp"
#include "doctor/thresholds.hpp"

namespace ferry::doctor {

const std::vector<LatencyFigure>& latency_figures() {
  using P = model::DeviceProfile;
  using R = LatencyReference;
  // Against a baseline only the graph's cost: in 12 healthy runs on 2 x H200 (docs/doctor.md) the lowest of each
  // GPU's was 98.8% of its highest, where launch + sync's was 84%, a launch per kernel's 63%, the flag's 58% and the
  // copy latencies' 75%: a 10% margin would warn on a healthy node. Their references judge them all the same.
  static const std::vector<LatencyFigure> all = {
      {"launch + sync", &P::launch_and_sync_s, &R::launch_and_sync_s, false},
      {"launch per kernel", &P::launch_per_kernel_s, &R::launch_per_kernel_s, false},
      {"graph per kernel", &P::graph_per_kernel_s, &R::graph_per_kernel_s, false, Worse::higher},
      {"flag round trip", &P::flag_round_trip_s, &R::flag_round_trip_s, true},
      {"copy latency h2d", &P::copy_latency_h2d_s, &R::copy_latency_h2d_s, true},
      {"copy latency d2h", &P::copy_latency_d2h_s, &R::copy_latency_d2h_s, true},
  };
  return all;
}

namespace {

std::string microseconds(double seconds) { return fmt::format("{:.2f} us", to_us(seconds)); }

Finding judged(const Inputs& in, int device, const LatencyFigure& figure, double measured,
               const LatencyReference& ref) {
  const double reference = ref.*figure.reference;
  const LatencyLimit& limit = latency_vs_reference;
  Finding f{.check = std::string(figure.check),
            .subject = gpu_subject(device),
            .value = measured,
            .model = reference,
            .unit = Unit::seconds,
            .worse = figure.against_baseline};
  f.measured = microseconds(measured);
  f.expected = fmt::format("<= {:.1f}x {}", limit.warn_above, microseconds(reference));
  f.basis = fmt::format("the {} of {} ({})", ref.short_name, ref.source, ref.machine);
  const double times = measured / reference;
  f.verdict = times > limit.fail_above ? Verdict::fail : times > limit.warn_above ? Verdict::warn : Verdict::ok;
  if (f.verdict == Verdict::ok) return f;
  std::string why;
  if (shared_with_others(in.machine, device))
    why = fmt::format("another process had work on GPU {} while doctor measured (see other processes): its kernels "
                      "and copies queue beside doctor's",
                      device);
  else if (figure.crosses_pcie)
    why = "a small transfer is fixed costs: the host's call and sync, and the link waking from power saving";
  else
    why = "a launch and a sync are the host's work (a driver call, a doorbell write, a wait): a CPU held at a low "
          "clock, or busy with other work, pays it on every kernel";
  f.cause = fmt::format("{} {} against {} on the {} of {}: {:.1f}x; {}", figure.check, f.measured,
                        microseconds(reference), ref.short_name, ref.source, times, why);
  f.action = "set the CPU frequency governor to performance (`cpupower frequency-info` shows it; powersave clocks "
             "the cores down), look for other work on the host (`uptime`, `top`) and the GPU (`nvidia-smi`), and turn "
             "persistence mode on (`nvidia-smi -pm 1`)";
  if (figure.crosses_pcie)
    f.action += "; PCIe power saving adds to every small transfer: `cat /sys/module/pcie_aspm/parameters/policy`";
  return f;
}

}  // namespace

std::vector<Finding> judge_latencies(const Inputs& in) {
  std::vector<Finding> out;
  if (!in.figures.gpu_timings) {
    out.push_back(
        not_judged("latencies", "host",
                   "the emulator's timings are CPU timings: doctor judges its facts and checks, not its speed"));
    return out;
  }
  for (const model::DeviceProfile& p : in.figures.devices) {
    const LatencyReference* ref = latency_reference(p.name);
    if (!ref) {
      out.push_back(not_judged("latencies", gpu_subject(p.device),
                               fmt::format("no reference for {} ships with ferry (docs/results has the {}'s)", p.name,
                                           join(latency_references(), "'s and the ",
                                                [](const LatencyReference& r) { return std::string(r.gpu); }))));
      continue;
    }
    for (const LatencyFigure& figure : latency_figures()) {
      const double measured = p.*figure.measured;
      if (measured <= 0)
        out.push_back(not_judged(std::string(figure.check), gpu_subject(p.device),
                                 "the pass did not measure it (link's skipped list says why)"));
      else out.push_back(judged(in, p.device, figure, measured, *ref));
    }
  }
  return out;
}

}  // namespace ferry::doctor
