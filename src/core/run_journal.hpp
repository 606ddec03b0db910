#pragma once
// Rows measured are never lost (docs/reliability.md, "A run that ends early").
// While a run lasts, the rows its workloads have finished are kept in memory
// and, as they come, in a sidecar beside the results file: FILE.partial, a
// ferry.results/1 document replaced atomically, with one more top-level field,
// "incomplete". A run that ends early (SIGINT, SIGTERM, an error, a timeout)
// leaves the sidecar with the reason, and its message names the file; a run
// that completes removes it. The results file itself is never touched by a run
// that did not complete, so an earlier complete one stays as it was.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "core/results.hpp"

namespace ferry {

class RunJournal {
 public:
  RunJournal();  // the journal of the command line under way; idle until start()
  ~RunJournal();
  RunJournal(const RunJournal&) = delete;
  RunJournal& operator=(const RunJournal&) = delete;

  // Keeps the rows of a run whose results begin as `started` (the machine, the command line) and go to
  // `results_path` ("-" is standard output). From now until complete(), SIGINT and SIGTERM leave the rows
  // finished, then end the process by the signal as before.
  void start(const Results& started, const std::string& results_path, std::ostream& standard_output);

  // The run's results are complete and written (or kept in the temporary folder): the sidecar goes.
  void complete();

  // The run ended early for `reason`: what was finished is written with it (when no row had finished, only if
  // `even_without_rows`: bad input found after the banner leaves no file). Returns the words that say where, for
  // the message ("11 rows finished, kept in 'r.json.partial', marked incomplete"); "" when nothing was kept.
  std::string keep_unfinished(const std::string& reason, bool even_without_rows);

  // For Progress: a workload's place in the journal, its rows so far, its steps so far. A workload's rows may be
  // given again whole, with more; each call replaces the last.
  std::size_t open_workload();
  // Whether a run's rows are being kept: only then is it worth making them whole to give them.
  bool keeping() const;
  void keep_rows(std::size_t workload, const WorkloadResult& so_far);
  // False once keep_unfinished has written what ended: a step begun after that (the signal's thread writes while the
  // run goes on until the process ends) is past what the sidecar records, and is not shown either.
  bool count_steps(std::size_t workload, std::size_t taken, std::size_t expected);

 private:
  struct Kept {
    WorkloadResult rows;
    bool has_rows = false;
    std::size_t steps_taken = 0;
    std::size_t steps_expected = 0;
  };
  Results unfinished(const std::string& reason) const;
  void write_sidecar(const Results& results);
  void watch_signals();
  void stop_watching_signals();

  mutable std::mutex lock_;
  bool running_ = false;
  bool ended_early_ = false;  // keep_unfinished has run
  Results started_;
  std::string results_path_;
  std::string sidecar_;  // "" when there is none (core/run_journal.cpp, keeping_for)
  bool in_place_ = false;
  std::ostream* standard_output_ = nullptr;
  std::vector<Kept> kept_;
  bool sidecar_written_ = false;
  std::chrono::steady_clock::time_point last_write_{};
  std::chrono::steady_clock::duration last_write_took_{};
  std::thread signal_watcher_;
  RunJournal* outer_;
};

// The journal of the command line under way, or nullptr.
RunJournal* current_journal();

// The sidecar of a results file: where the rows of a run to it that ended early are kept.
std::string sidecar_of(const std::string& results_path);

}  // namespace ferry
