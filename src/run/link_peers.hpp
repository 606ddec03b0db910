#pragma once
// Link's peer figures for a workload that sets its results beside them (beff's
// p2p-ce and p2p-sm models, topo's direct peaks): from a machine profile, else
// measured now between this process's devices, whose link rows then join the results.
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/results.hpp"
#include "model/profile.hpp"
#include "transport/world.hpp"

namespace ferry {

struct LinkPeers {
  std::vector<model::PeerProfile> peers;  // empty: none to be had (one device, or under mpirun)
  std::string origin;                     // "from the profile P.json", "measured in this run", or ""
};

LinkPeers link_peers(Backend& backend, Results& results, const std::string& profile_path,
                     const std::vector<int>& devices, const World& world, bool quiet);

}  // namespace ferry
