#pragma once
// Progress of a long run, on standard error so that tables on standard output
// stay clean. On a terminal, one line that rewrites itself:
//   [link] 12/40, 1m05s left: device 0: pinned host memory, 64 MiB
// Elsewhere (CI, a pipe, a log file), a plain line per step, as logs want:
//   [link] device 0: pinned host memory, 64 MiB
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace ferry {

class Progress {
 public:
  enum class Output { quiet, lines, terminal };

  // Lines or a terminal line, as standard error is; quiet when not enabled (-q).
  Progress(std::string workload, bool enabled);
  Progress(std::string workload, Output output, std::FILE* to);
  ~Progress();  // clears a terminal line, so what is printed next starts clean
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // How many steps the run will take, once the workload knows: the terminal
  // line then shows the count out of it and the time left. Called again
  // (topo, a topology at a time), it adds to the total.
  void expect(std::size_t steps) const;
  // Steps expected that will not run after all (a transport found unavailable).
  void expect_fewer(std::size_t steps) const;
  void step(const std::string& what) const;
  // The rows the workload has finished so far, whole each time (a derived row may change as rows come): the run's
  // journal keeps them (core/run_journal.hpp), so that a run that ends early loses none.
  void keep_rows(const WorkloadResult& so_far) const;
  // The same for a workload that must make its rows whole to give them (beff's, topo's, stream's): `make` runs
  // only where the run's journal keeps rows (a results file was asked for, on rank 0), so a run without --json
  // does no such work.
  template <class MakeRows>
  void keep_rows_made_by(MakeRows make) const {
    if (keeps_rows()) keep_rows(make());
  }
  bool keeps_rows() const;
  std::size_t steps_taken() const { return taken_; }
  // Every step's text from now on, for tests that hold a workload's plan to its run.
  void keep_steps() { keep_steps_ = true; }
  const std::vector<std::string>& kept_steps() const { return kept_; }
  std::size_t steps_expected() const { return expected_; }

 private:
  std::string workload_;
  Output output_;
  std::FILE* to_;
  // A reporter's own state: workloads hold a const Progress& and only report to it.
  mutable std::size_t taken_ = 0;
  mutable std::size_t expected_ = 0;
  mutable std::chrono::steady_clock::time_point first_step_{};
  mutable bool line_open_ = false;
  bool count_steps_in_journal() const;  // false once the journal has recorded the run's end (RunJournal::count_steps)

  std::size_t journal_place_;  // this workload's place in the run's journal
  bool keep_steps_ = false;
  mutable std::vector<std::string> kept_;
};

// "4s", "1m05s", "2h03m": a time left, to the second below an hour.
std::string format_time_left(double seconds);
// The time the remaining steps will take at the pace of the steps so far, or
// nothing before one step has ended.
std::optional<double> seconds_left(double elapsed_s, std::size_t ended, std::size_t total);

}  // namespace ferry
