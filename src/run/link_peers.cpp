#include "run/link_peers.hpp"

#include <fmt/format.h>

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

}  // namespace ferry
