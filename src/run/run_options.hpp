#pragma once
// The options every `ferry run WORKLOAD` takes, and the devices they name.
// cli/run_options.hpp adds them to a command; run/driver.hpp runs with them.
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "run/run_results.hpp"
#include "transport/world.hpp"

namespace ferry {

struct RunOptions {
  std::string backend = "auto";
  std::string device;   // one device, "0" when neither option is given
  std::string devices;  // "0,1,2"
  bool quick = false;
  bool quiet = false;
  bool dry_run = false;
  bool allow_shared_gpu = false;  // --allow-shared-gpu: ranks may share a device under mpirun
  OutputPaths outputs;            // --json, --csv
};

// The devices the options name: --devices, else --device, else 0.
std::vector<int> selected_devices(const RunOptions& options);

// The device of a workload that runs on one (`workload` names it in the
// message when the options name several).
int one_device(const RunOptions& options, const std::string& workload);

// The devices of a run whose participants are devices (beff, topo). In one
// process every device is one (all of them by default). Under mpirun each
// rank takes one: --devices lists them per local rank, and without it local
// rank k takes device k.
// Every rank must call it. Ranks on one device (more ranks on a host than it has devices, or --devices naming
// one twice) measure each other's traffic, so every rank refuses them alike, naming them, unless
// --allow-shared-gpu; then `shared` names them, for the run's notes and doctor's findings.
struct Participants {
  std::vector<int> devices;
  std::string shared;  // "ranks 0 and 4 share GPU 0 on HOST"; "" when every rank has a device of its own
};
Participants participant_devices(const Backend& backend, const RunOptions& options, const World& world);

// Given each rank's place ("GPU D on HOST", in rank order): "ranks 0 and 4 share GPU 0 on HOST; ..." for every
// place that several ranks have, or "" when every place is a rank's own.
std::string ranks_sharing(const std::vector<std::string>& places);
// The refusal when ranks share a device, with the devices this host has; "" when every place is a rank's own.
std::string ranks_sharing_a_device(const std::vector<std::string>& places, int devices_here);

}  // namespace ferry
