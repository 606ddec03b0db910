#include "run/driver.hpp"

#include "backend/select.hpp"
#include "core/run_journal.hpp"
#include "run/run_results.hpp"
#include "run/standard_output.hpp"

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
  Results results = start_results(*backend_, command_line_, speaks() ? out_ : silent);
  // Rank 0 holds what the ranks gathered, and writes the files.
  if (RunJournal* journal = current_journal(); journal && speaks() && !options_.outputs.json_path.empty())
    journal->start(results, options_.outputs.json_path, standard_output());
  return results;
}

Progress Driver::progress(const std::string& workload) const { return Progress(workload, speaks() && !options_.quiet); }

int Driver::finish(const std::function<int(std::ostream& out)>& on_rank_zero) const {
  int code = 0;
  if (speaks()) {
    // Every row is finished by now: the files written, or kept in the temporary folder where they could not be,
    // a sidecar of rows would only repeat them.
    struct Completes {
      ~Completes() {
        if (RunJournal* journal = current_journal()) journal->complete();
      }
    } completes;
    code = on_rank_zero(out_);
  }
  return world_.broadcast(code);
}

int Driver::finish(Results& results, WorkloadResult result) const {
  return finish([&](std::ostream& out) {
    results.workloads.push_back(std::move(result));
    return finish_run(results, options_.outputs, out);
  });
}

}  // namespace ferry
