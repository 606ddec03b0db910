#include "run/driver.hpp"

#include "backend/select.hpp"
#include "run/run_results.hpp"

namespace ferry {

Driver::Driver(const RunOptions& options, const std::vector<std::string>& command_line, std::ostream& out)
    : options_(options),
      command_line_(command_line),
      out_(out),
      world_(ferry::world()),
      backend_(make_backend(options.backend)) {}

int Driver::dry_run(const std::function<int(std::ostream& out)>& print) const {
  return speaks() ? print(out_) : 0;  // every rank's plan is rank 0's, on its own device
}

Results Driver::start() const {
  std::ostream silent(nullptr);
  return start_results(*backend_, command_line_, speaks() ? out_ : silent);
}

Progress Driver::progress(const std::string& workload) const { return Progress(workload, speaks() && !options_.quiet); }

int Driver::finish(const std::function<int(std::ostream& out)>& on_rank_zero) const {
  return world_.broadcast(speaks() ? on_rank_zero(out_) : 0);
}

int Driver::finish(Results& results, WorkloadResult result) const {
  return finish([&](std::ostream& out) {
    results.workloads.push_back(std::move(result));
    return finish_run(results, options_.outputs, out);
  });
}

}  // namespace ferry
