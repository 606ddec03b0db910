#pragma once
// One driver for every `ferry run`: what a run does around its workload's own
// work. It starts the backend and knows the world: this process alone, or the
// ranks mpirun started for a workload that shares its work between them (beff,
// topo; run/shared_workload.hpp). Rank 0 speaks for every rank: the banner, a
// dry run's steps, the tables and the files are its alone, and every rank
// returns its exit code. A process run without mpirun is rank 0.
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/progress.hpp"
#include "core/results.hpp"
#include "run/run_options.hpp"
#include "transport/world.hpp"

namespace ferry {

class Driver {
 public:
  // Starts the backend the options name (UsageError when it cannot), before anything is printed.
  Driver(const RunOptions& options, const std::vector<std::string>& command_line, std::ostream& out);

  Backend& backend() const { return *backend_; }
  World& world() const { return world_; }
  const RunOptions& options() const { return options_; }

  // --dry-run: `print` lists the steps on rank 0's `out` and returns the exit
  // code, 0; the other ranks print nothing and return 0.
  int dry_run(const std::function<int(std::ostream& out)>& print) const;

  // The results before any workload, on every rank; rank 0 prints their banner.
  Results start() const;

  // A workload's progress line on standard error: rank 0's, unless --quiet.
  Progress progress(const std::string& workload) const;

  // Rank 0 prints and writes what the ranks measured: `on_rank_zero` does, on
  // its `out`, and returns the exit code, which every rank then returns.
  int finish(const std::function<int(std::ostream& out)>& on_rank_zero) const;
  // finish() of a run whose results are `results` and `result`: their tables,
  // and the files --json and --csv name (run/run_results.hpp's finish_run).
  int finish(Results& results, WorkloadResult result) const;

 private:
  bool speaks() const { return world_.rank() == 0; }

  RunOptions options_;
  std::vector<std::string> command_line_;
  std::ostream& out_;
  World& world_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace ferry
