#include "run/dry_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/clock.hpp"
#include "core/host_parallel.hpp"
#include "core/progress.hpp"
#include "model/link_model.hpp"

namespace ferry {
namespace {

// The host copying 64 MiB, best of three, on one core and on all of them: the
// emulator's copies run near the first, ferry's fills and checks (split over
// the cores) near the second.
struct HostCopy {
  double one_core_Bps = 0;
  double all_cores_Bps = 0;
};

HostCopy time_host_copies() {
  constexpr std::int64_t bytes = 64 << 20;
  std::vector<char> from(bytes, 1), to(bytes, 0);
  auto best_of_three = [&](auto copy) {
    double best = 0;
    for (int i = 0; i < 3; ++i) {
      const auto start = HostClock::now();
      copy();
      best = std::max(best, static_cast<double>(bytes) / seconds_between(start, HostClock::now()));
    }
    return best;
  };
  HostCopy rates;
  rates.one_core_Bps = best_of_three([&] { std::memcpy(to.data(), from.data(), bytes); });
  rates.all_cores_Bps = best_of_three([&] {
    parallel_ranges(bytes, 1 << 20, [&](std::int64_t first, std::int64_t end) {
      std::memcpy(to.data() + first, from.data() + first, static_cast<std::size_t>(end - first));
    });
  });
  if (to[bytes - 1] != 1)
    throw std::logic_error("the host copy did not copy");  // and keeps it from being optimized away
  return rates;
}

std::string seconds_text(double s) { return s < 10 ? fmt::format("{:.2f} s", s) : format_time_left(s); }

}  // namespace

Pace dry_run_pace(const Machine& machine, const model::MachineProfile* profile, int device) {
  Pace pace;
  const HostCopy copies = time_host_copies();
  pace.host_Bps = copies.all_cores_Bps;
  const std::string host = fmt::format("the host copies {:.1f} GB/s on one core, {:.1f} GB/s on all (timed now)",
                                       copies.one_core_Bps / 1e9, copies.all_cores_Bps / 1e9);
  if (profile) {
    const model::DeviceProfile& d = profile->device(device);
    pace.link_Bps = std::min(d.h2d_Bps, d.d2h_Bps);
    pace.device_Bps = 2 * d.device_copy_Bps;  // a copy reads and writes each byte
    pace.wait_s = d.launch_and_sync_s;
    pace.launch_s = d.launch_per_kernel_s;
    pace.handoff_s = d.flag_round_trip_s;
    for (const model::PeerProfile& p : profile->peers)
      if (p.copy_Bps > 0) pace.peer_Bps = pace.peer_Bps > 0 ? std::min(pace.peer_Bps, p.copy_Bps) : p.copy_Bps;
    if (pace.peer_Bps == 0) pace.peer_Bps = pace.link_Bps;
    pace.basis = fmt::format("the machine profile's rates for device {}; {}", device, host);
    return pace;
  }
  if (!machine.gpu_timings) {
    // The emulator's copies, kernels and peers are the host's memory copies; a launch is a thread's hand-over.
    pace.link_Bps = pace.device_Bps = copies.one_core_Bps;
    // An exchange between emulated devices hands each message between their threads: on a
    // 2-core machine beff's and topo's ran at about an eighth of a host copy.
    pace.peer_Bps = copies.one_core_Bps / 8;
    pace.wait_s = 20e-6;
    pace.launch_s = 5e-6;
    pace.handoff_s = 30e-6;  // a flag between threads, on an idle machine: a busy one can take 50 times longer
    pace.basis = fmt::format("emulator: {}", host);
    return pace;
  }
  const GpuFacts& gpu = machine.gpus.at(static_cast<std::size_t>(device));
  // Nominal shares of the theoretical rates, near what link measures on H100 and H200.
  pace.link_Bps = 0.8 * model::pcie_Bps(gpu.pcie.max_generation, gpu.pcie.max_width);
  pace.device_Bps = 0.8 * gpu.memory_bandwidth_Bps;
  int nvlinks = 0;  // the pair with the fewest, of those NVML reports
  for (const PeerFacts& p : machine.peers)
    if (p.nvlinks > 0) nvlinks = nvlinks == 0 ? p.nvlinks : std::min(nvlinks, p.nvlinks);
  pace.peer_Bps = nvlinks > 0 ? nvlinks * 20e9 : pace.link_Bps;
  pace.wait_s = 10e-6;
  pace.launch_s = 2.5e-6;
  pace.handoff_s = 3e-6;
  pace.basis = fmt::format("nominal: 80% of {} and of device {}'s memory bus{}, 10 us a launch and sync; {}; give "
                           "--profile FILE (from `ferry probe -o FILE`) for this machine's measured rates",
                           model::pcie_name(gpu.pcie.max_generation, gpu.pcie.max_width), device,
                           nvlinks > 0 ? fmt::format(", 20 GB/s per NVLink ({})", nvlinks) : "", host);
  return pace;
}

int print_dry_run(const Machine& machine, const std::vector<PlannedWorkload>& workloads, const Pace& pace,
                  std::ostream& out) {
  std::size_t steps = 0;
  double total_s = 0;
  out << fmt::format("dry run on {} ({} backend{}): nothing is measured or written; each step's time is an estimate\n",
                     machine.host.hostname, machine.backend,
                     machine.gpus.empty() ? ""
                                          : fmt::format(", {} x {}", machine.gpus.size(), machine.gpus.front().name));
  for (const PlannedWorkload& w : workloads) {
    double workload_s = 0;
    std::vector<double> each;
    for (const PlannedStep& step : w.plan.steps) each.push_back(estimate_seconds(step, pace));
    for (double s : each) workload_s += s;
    out << fmt::format("\n{}: {} steps, about {}\n", w.workload, w.plan.steps.size(), seconds_text(workload_s));
    for (std::size_t i = 0; i < each.size(); ++i)
      out << fmt::format("  {:>4}  {:>9}  {}\n", steps + i + 1, seconds_text(each[i]), w.plan.steps[i].what);
    for (const std::string& why : w.plan.skipped) out << fmt::format("  left out: {}\n", why);
    if (!w.caveat.empty()) out << fmt::format("  {}\n", w.caveat);
    steps += each.size();
    total_s += workload_s;
  }
  out << fmt::format("\ntotal: {} steps, about {}\n", steps, seconds_text(total_s));
  out << fmt::format("pace: {}\n", pace.basis);
  return 0;
}

}  // namespace ferry
