#include "core/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/run_journal.hpp"

namespace ferry {
namespace {

Progress::Output output_for(bool enabled) {
  if (!enabled) return Progress::Output::quiet;
  const char* term = std::getenv("TERM");
  const bool dumb = term == nullptr || std::string(term) == "dumb";
  return ::isatty(STDERR_FILENO) && !dumb ? Progress::Output::terminal : Progress::Output::lines;
}

// The terminal's width; else $COLUMNS (a pseudo-terminal that was never sized); else 80.
std::size_t terminal_columns(std::FILE* to) {
  winsize size{};
  if (::ioctl(::fileno(to), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"))
    if (const long n = std::strtol(columns, nullptr, 10); n >= 20 && n <= 1000) return static_cast<std::size_t>(n);
  return 80;
}

// A terminal line must not wrap, or \r returns to its last row and the rest stays.
std::string fit(std::string line, std::size_t columns) {
  if (columns < 2 || line.size() < columns) return line;
  line.resize(columns - 2);
  return line + "~";
}

}  // namespace

std::string format_time_left(double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::optional<double> seconds_left(double elapsed_s, std::size_t ended, std::size_t total) {
  if (ended == 0 || total < ended) return std::nullopt;
  return elapsed_s / static_cast<double>(ended) * static_cast<double>(total - ended);
}

Progress::Progress(std::string workload, bool enabled) : Progress(std::move(workload), output_for(enabled), stderr) {}

Progress::Progress(std::string workload, Output output, std::FILE* to)
    : workload_(std::move(workload)),
      output_(output),
      to_(to),
      journal_place_(current_journal() ? current_journal()->open_workload() : 0) {}

Progress::~Progress() {
  if (line_open_) {
    std::fputs("\r\x1b[K", to_);
    std::fflush(to_);
  }
}

void Progress::expect(std::size_t steps) const {
  expected_ += steps;
  count_steps_in_journal();
}

void Progress::expect_fewer(std::size_t steps) const {
  expected_ -= std::min(steps, expected_);
  count_steps_in_journal();
}

bool Progress::count_steps_in_journal() const {
  RunJournal* journal = current_journal();
  return !journal || journal->count_steps(journal_place_, taken_, expected_);
}

void Progress::keep_rows(const WorkloadResult& so_far) const {
  if (RunJournal* journal = current_journal()) journal->keep_rows(journal_place_, so_far);
}

bool Progress::keeps_rows() const {
  const RunJournal* journal = current_journal();
  return journal && journal->keeping();
}

void Progress::step(const std::string& what) const {
  const auto now = std::chrono::steady_clock::now();
  if (taken_ == 0) first_step_ = now;
  ++taken_;
  // A step begun after an interruption's sidecar was written: the sidecar says what ended, and so does the output.
  if (!count_steps_in_journal()) return;
  if (keep_steps_) kept_.push_back(what);
  switch (output_) {
    case Output::quiet: return;
    case Output::lines: fmt::print(to_, "[{}] {}\n", workload_, what); break;
    case Output::terminal: {
      // The steps before this one have ended; their pace gives the time left.
      const double elapsed = std::chrono::duration<double>(now - first_step_).count();
      std::string count = fmt::format("{}", taken_);
      if (expected_ >= taken_) {
        count += fmt::format("/{}", expected_);
        if (const auto left = seconds_left(elapsed, taken_ - 1, expected_))
          count += fmt::format(", {} left", format_time_left(*left));
      } else {
        count += fmt::format(", {} so far", format_time_left(elapsed));
      }
      const std::string line = fit(fmt::format("[{}] {}: {}", workload_, count, what), terminal_columns(to_));
      fmt::print(to_, "\r\x1b[K{}", line);
      line_open_ = true;
      break;
    }
  }
  std::fflush(to_);
}

}  // namespace ferry
