#include "run/link_peers.hpp"

#include <fmt/format.h>

#include <optional>

#include "bench/link/link.hpp"

namespace ferry {

LinkPeers link_peers(Backend& backend, Results& results, const std::string& profile_path,
                     const std::vector<int>& devices, const World& world, bool quiet) {
  if (!profile_path.empty())
    return {model::read_profile(profile_path).peers, fmt::format("from the profile {}", profile_path)};
  // Link drives every device from one process.
  if (world.distributed() || devices.size() < 2) return {};
  link::LinkOutcome outcome =
      link::run(backend, results.machine, link::LinkConfig::for_peers(backend.capabilities(), devices),
                Progress("link", !quiet));
  results.workloads.push_back(std::move(outcome.result));
  return {outcome.profile.peers, "measured in this run"};
}

int dry_run_with_link_peers(Backend& backend, const std::string& profile_path, const std::vector<int>& devices,
                            const World& world, bool wants_peers, PlannedWorkload workload, std::ostream& out) {
  std::optional<model::MachineProfile> profile;
  if (!profile_path.empty()) profile = model::read_profile(profile_path);
  std::vector<PlannedWorkload> planned;
  if (wants_peers && !profile && !world.distributed() && devices.size() >= 2)
    planned.push_back({"link", link::plan_run(backend, link::LinkConfig::for_peers(backend.capabilities(), devices))});
  workload.caveat = "a transport that cannot run here is found out when it opens: its steps then leave the run";
  planned.push_back(std::move(workload));
  const Machine machine = backend.describe_machine();
  return print_dry_run(machine, planned, dry_run_pace(machine, profile ? &*profile : nullptr, devices.front()), out);
}

}  // namespace ferry
