#include "core/run_journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/results_json.hpp"

namespace ferry {
namespace {

RunJournal* current = nullptr;

// The signal handler's only work: one byte, the signal's number, down a pipe to the thread that keeps the rows
// (writing a file is not safe inside a handler).
int signal_pipe[2] = {-1, -1};
struct sigaction before_interrupt {};
struct sigaction before_terminate {};
bool handlers_installed = false;

void on_signal(int signal) {
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(signal);
  [[maybe_unused]] const ssize_t sent = ::write(signal_pipe[1], &byte, 1);
  errno = saved;
}

const char* signal_name(int signal) { return signal == SIGINT ? "SIGINT" : "SIGTERM"; }

// A handler for `signal` unless the process was started with it ignored (nohup, a shell's background job).
void handle(int signal, struct sigaction& before) {
  struct sigaction action {};
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESTART;  // the run's own calls go on undisturbed until the rows are kept
  sigemptyset(&action.sa_mask);
  ::sigaction(signal, nullptr, &before);
  if (before.sa_handler == SIG_IGN) return;
  ::sigaction(signal, &action, nullptr);
}

// Where the rows of a run to `results_path` that ends early go.
struct Keeping {
  std::string sidecar;    // FILE.partial; "" when there is none
  bool in_place = false;  // into the results path itself: standard output, a FIFO or a device, never replaced by
                          // a file, take the incomplete document where the complete one would have gone
};

Keeping keeping_for(const std::string& results_path) {
  if (results_path == "-") return {"", true};
  struct stat s {};
  if (::stat(final_destination(results_path).c_str(), &s) == 0 && !S_ISREG(s.st_mode)) return {"", true};
  // A .partial name that something other than a file holds is left as it is: the rows go to the temporary folder.
  const std::string sidecar = sidecar_of(results_path);
  if (::lstat(sidecar.c_str(), &s) == 0 && !S_ISREG(s.st_mode)) return {"", false};
  return {sidecar, false};
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string sidecar_of(const std::string& results_path) { return results_path + ".partial"; }

RunJournal* current_journal() { return current; }

RunJournal::RunJournal() : outer_(current) { current = this; }

RunJournal::~RunJournal() {
  stop_watching_signals();
  current = outer_;
}

void RunJournal::start(const Results& started, const std::string& results_path, std::ostream& standard_output) {
  {
    const std::lock_guard hold(lock_);
    running_ = true;
    started_ = started;
    results_path_ = results_path;
    const Keeping keeping = keeping_for(results_path);
    sidecar_ = keeping.sidecar;
    in_place_ = keeping.in_place;
    standard_output_ = &standard_output;
  }
  watch_signals();
}

void RunJournal::complete() {
  {
    const std::lock_guard hold(lock_);
    if (!running_) return;
    running_ = false;
    // An earlier run's sidecar goes too: the results file it stood in for is complete now.
    if (!sidecar_.empty()) std::remove(sidecar_.c_str());
  }
  stop_watching_signals();
}

std::size_t RunJournal::open_workload() {
  const std::lock_guard hold(lock_);
  kept_.emplace_back();
  return kept_.size() - 1;
}

bool RunJournal::keeping() const {
  const std::lock_guard hold(lock_);
  return running_;
}

bool RunJournal::count_steps(std::size_t workload, std::size_t taken, std::size_t expected) {
  const std::lock_guard hold(lock_);
  if (ended_early_) return false;
  if (workload >= kept_.size()) return true;
  kept_[workload].steps_taken = taken;
  kept_[workload].steps_expected = expected;
  return true;
}

void RunJournal::keep_rows(std::size_t workload, const WorkloadResult& so_far) {
  const std::lock_guard hold(lock_);
  if (!running_ || workload >= kept_.size()) return;  // no copy of the rows where nothing keeps them
  kept_[workload].rows = so_far;
  kept_[workload].has_rows = true;
  if (sidecar_.empty()) return;
  // Writing the whole document again costs time between steps: it waits until 20 times the last write's time
  // has passed, so that keeping rows on disk takes at most 5% of the run. Memory holds every row meanwhile.
  const auto now = std::chrono::steady_clock::now();
  if (sidecar_written_ && now - last_write_ < 20 * last_write_took_) return;
  write_sidecar(unfinished("the run was still going when this was written; its process may have been killed"));
  last_write_ = now;
  last_write_took_ = std::chrono::steady_clock::now() - now;
}

Results RunJournal::unfinished(const std::string& reason) const {
  Results results = started_;
  Incomplete ended{reason};
  for (const Kept& k : kept_) {
    ended.steps_done += k.steps_taken;
    ended.steps_planned += k.steps_expected;
    if (!k.has_rows) continue;
    results.workloads.push_back(k.rows);
    ended.rows_done += k.rows.rows.size();
  }
  results.incomplete = ended;
  return results;
}

void RunJournal::write_sidecar(const Results& results) {
  const std::string why = replace_file(sidecar_, results_to_json(results));
  if (why.empty()) {
    sidecar_written_ = true;
    return;
  }
  // The rows stay in memory; the end of the run says where they went.
  std::fprintf(stderr, "ferry: note: cannot keep the rows finished in '%s' as they come (%s): memory holds them\n",
               sidecar_.c_str(), why.c_str());
  sidecar_.clear();
}

std::string RunJournal::keep_unfinished(const std::string& reason, bool even_without_rows) {
  const std::lock_guard hold(lock_);
  if (!running_) return "";
  running_ = false;
  ended_early_ = true;
  const Results results = unfinished(reason);
  if (results.incomplete->rows_done == 0 && !even_without_rows) return "";
  const std::string json = results_to_json(results);
  const Incomplete& ended = *results.incomplete;
  const std::string done = fmt::format(
      "{} finished{}", plural(ended.rows_done, "row", "rows"),
      ended.steps_planned > 0 ? fmt::format(" ({} of {} steps begun)", ended.steps_done, ended.steps_planned) : "");
  std::string where;
  try {
    if (in_place_) {
      write_output(results_path_, json, *standard_output_);
      where = results_path_ == "-" ? "standard output" : fmt::format("'{}'", results_path_);
    } else if (!sidecar_.empty()) {
      write_file_atomically(sidecar_, json);
      where = fmt::format("'{}'", sidecar_);
    } else {
      throw RuntimeFailure(fmt::format("'{}' is not a file, and is left as it is", sidecar_of(results_path_)));
    }
  } catch (const RuntimeFailure& e) {
    try {
      where = fmt::format("'{}' ({})", write_fallback(sidecar_of(results_path_), json), e.what());
    } catch (const RuntimeFailure& fallback) {
      return fmt::format("{}, which could not be kept: {}", done, fallback.what());
    }
  }
  return fmt::format("{}, kept in {}, marked incomplete", done, where);
}

void RunJournal::watch_signals() {
  if (handlers_installed || ::pipe2(signal_pipe, O_CLOEXEC) != 0) return;
  handlers_installed = true;
  handle(SIGINT, before_interrupt);
  handle(SIGTERM, before_terminate);
  signal_watcher_ = std::thread([this] {
    unsigned char byte = 0;
    for (;;) {
      const ssize_t got = ::read(signal_pipe[0], &byte, 1);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0 || byte == 0) return;  // 0: the run is over, stop watching
      const int signal = byte;
      const std::string where = keep_unfinished(fmt::format("interrupted by {}", signal_name(signal)), true);
      const std::string line =
          fmt::format("ferry: interrupted by {}{}\n", signal_name(signal), where.empty() ? "" : ": " + where);
      [[maybe_unused]] const ssize_t said = ::write(STDERR_FILENO, line.data(), line.size());
      // Then the end the signal would have made: the caller (a shell, mpirun) sees the process killed by it.
      std::signal(signal, SIG_DFL);
      std::raise(signal);
    }
  });
}

void RunJournal::stop_watching_signals() {
  if (!handlers_installed) return;
  ::sigaction(SIGINT, &before_interrupt, nullptr);
  ::sigaction(SIGTERM, &before_terminate, nullptr);
  const unsigned char stop = 0;
  [[maybe_unused]] const ssize_t sent = ::write(signal_pipe[1], &stop, 1);
  if (signal_watcher_.joinable()) signal_watcher_.join();
  ::close(signal_pipe[0]);
  ::close(signal_pipe[1]);
  signal_pipe[0] = signal_pipe[1] = -1;
  handlers_installed = false;
}

}  // namespace ferry
