#include "run/shared_workload.hpp"

#include <fmt/format.h>

#include <optional>

#include "bench/link/link.hpp"
#include "run/dry_run.hpp"

namespace ferry {
namespace {

// link's steps that link_peers() would take, then the workload's; priced from the profile when one is given.
int print_dry_run_with_link_peers(const Driver& driver, const SharedWorkload& w, std::ostream& out) {
  Backend& backend = driver.backend();
  PlannedWorkload workload{w.name, w.plan(),
                           "a transport that cannot run here is found out when it opens: its steps then leave the run"};
  std::optional<model::MachineProfile> profile;
  if (!w.profile_path.empty()) profile = model::read_profile(w.profile_path);
  std::vector<PlannedWorkload> planned;
  if (w.reads_link_peers && !profile && !driver.world().distributed() && w.devices.size() >= 2)
    planned.push_back(
        {"link", link::plan_run(backend, link::LinkConfig::for_peers(backend.capabilities(), w.devices))});
  planned.push_back(std::move(workload));
  const Machine machine = backend.describe_machine();
  return print_dry_run(machine, planned, dry_run_pace(machine, profile ? &*profile : nullptr, w.devices.front()), out);
}

}  // namespace

int run_shared_workload(const Driver& driver, const SharedWorkload& w) {
  if (driver.options().dry_run)
    return driver.dry_run([&](std::ostream& out) { return print_dry_run_with_link_peers(driver, w, out); });
  Results results = driver.start();
  LinkPeers peers;
  if (w.reads_link_peers)
    peers = link_peers(driver.backend(), results, w.profile_path, w.devices, driver.world(), driver.options().quiet);
  WorkloadResult result = w.run(results.machine, peers, driver.progress(w.name));
  if (!w.shared_gpus.empty())
    result.notes.push_back(
        fmt::format("{} (--allow-shared-gpu): each one's figures include the other's traffic", w.shared_gpus));
  return driver.finish(results, std::move(result));
}

}  // namespace ferry
