#pragma once
// A workload whose ranks share its work under mpirun (beff, topo), as its
// declaration hands it to the driver: in one process it drives every device
// itself. Its model sets its figures beside link's peer figures, read from a
// machine profile or measured first in the same run.
#include <functional>
#include <string>
#include <vector>

#include "bench/common/plan.hpp"
#include "core/machine.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "run/driver.hpp"
#include "run/link_peers.hpp"

namespace ferry {

struct SharedWorkload {
  std::string name;          // "beff": its progress line and its part of a dry run
  std::vector<int> devices;  // this process's: link measures the peers between them
  bool reads_link_peers = false;
  std::string profile_path;    // --profile: the machine profile with link's peer figures ("": measure them)
  std::string shared_gpus;     // ranks that share a GPU, allowed (run/run_options.hpp): every table's notes say so
  std::function<Plan()> plan;  // the steps --dry-run lists
  // This rank's part of the run; the result is complete on rank 0.
  std::function<WorkloadResult(const Machine& machine, const LinkPeers& peers, const Progress& progress)> run;
};

// The workload's dry run; else the banner, link's peer figures where it reads
// them, its run, and the finish: rank 0 prints and writes for every rank.
// The workload's config is refused (validated) before, on every rank.
int run_shared_workload(const Driver& driver, const SharedWorkload& workload);

}  // namespace ferry
