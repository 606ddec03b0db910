#include "cli/python_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <string>

#include "core/error.hpp"

extern char** environ;

namespace ferry {
namespace {

// Loading the package is checked here, so a missing package reads as an
// environment problem (exit 3), not as exit 1, which compare uses for a regression.
// Its first act is a byte on the descriptor named by its first argument: an
// interpreter that exits without it never ran this code (it is no Python 3,
// or not a Python at all), whatever status it exits with.
constexpr const char* bootstrap =
    "import os, sys\n"
    "os.write(int(sys.argv[1]), b'1')\n"
    "os.close(int(sys.argv[1]))\n"
    "try:\n"
    "    from ferry.__main__ import main\n"
    "except ImportError as e:\n"
    "    print(f'ferry: cannot load the ferry Python package ({e}): apt-get install python3-matplotlib, "
    "or pip install ./python, or set FERRY_PYTHON to a Python that has them', "
    "file=sys.stderr)\n"
    "    sys.exit(3)\n"
    "sys.exit(main(sys.argv[2:]))\n";

// The package installed beside this binary (cmake --install, the .deb):
// BINDIR/../share/ferry/python, or empty when this binary runs from a build tree.
std::string installed_package_dir() {
  std::error_code failed;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", failed);
  if (failed) return "";
  const std::filesystem::path dir = self.parent_path() / FERRY_PYTHON_FROM_BINDIR;
  return std::filesystem::is_directory(dir / "ferry", failed) ? dir.lexically_normal().string() : "";
}

struct Interpreter {
  std::string path;
  const char* origin;  // where it came from, for a message that says what to change
};

// $FERRY_PYTHON; else the Python found when ferry was configured, while it
// exists; else python3 from the PATH (an installed ferry or a .deb on another
// machine, where the configuring build tree's venv is not).
Interpreter interpreter() {
  if (const char* chosen = std::getenv("FERRY_PYTHON"); chosen && *chosen) return {chosen, "FERRY_PYTHON"};
  const std::filesystem::path configured = FERRY_PYTHON_EXECUTABLE;
  std::error_code failed;
  if (!configured.is_absolute() || std::filesystem::exists(configured, failed))
    return {configured.string(), "the Python ferry was built with"};
  return {"python3", "python3 from the PATH"};
}

// PYTHONPATH with ferry's own package first (installed beside this binary,
// else the source tree's), so the package that came with this binary wins.
std::string python_path(const std::string& installed) {
  const char* existing = std::getenv("PYTHONPATH");
  std::string path = installed;
  if (path.empty() && std::filesystem::is_directory(FERRY_PYTHON_DIR "/ferry")) path = FERRY_PYTHON_DIR;
  if (existing && *existing) {
    if (!path.empty()) path += ':';
    path += existing;
  }
  return path;
}

// A pipe whose write end the interpreter inherits and the bootstrap writes a
// byte to; the read end stays here, never blocking.
class StartedSignal {
 public:
  StartedSignal() {
    if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0)
      throw RuntimeFailure(fmt::format("cannot create a pipe for the Python child: {}", std::strerror(errno)));
    ::fcntl(fds_[1], F_SETFD, 0);  // the child keeps the write end across exec
  }
  ~StartedSignal() {
    for (int& fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  StartedSignal(const StartedSignal&) = delete;
  StartedSignal& operator=(const StartedSignal&) = delete;

  int write_end() const { return fds_[1]; }
  // Once the child has started: the write end is the child's alone.
  void close_write_end() {
    ::close(fds_[1]);
    fds_[1] = -1;
  }
  // Once the child has exited: whether it began the bootstrap.
  bool started() const {
    char byte = 0;
    ssize_t n = 0;
    do n = ::read(fds_[0], &byte, 1);
    while (n < 0 && errno == EINTR);
    return n == 1;
  }

 private:
  int fds_[2] = {-1, -1};
};

// While the parent waits, the child is the command: Ctrl-C on a terminal reaches both (one process group), so
// the parent ignores it and lets the child say what it wrote; a SIGTERM sent to the parent alone (`kill PID`, a
// batch system) is passed on, so the child is not left running. The child starts with both at their defaults.
volatile sig_atomic_t child_to_signal = 0;
volatile sig_atomic_t signal_before_spawn = 0;  // a SIGTERM that came before the child had a pid

void pass_on(int signal) {
  if (child_to_signal > 0) ::kill(static_cast<pid_t>(child_to_signal), signal);
  else signal_before_spawn = signal;
}

class WhileChildRuns {
 public:
  WhileChildRuns() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &before_interrupt_);
    struct sigaction forward {};
    forward.sa_handler = pass_on;
    sigemptyset(&forward.sa_mask);
    ::sigaction(SIGTERM, &forward, &before_terminate_);
  }
  ~WhileChildRuns() {
    child_to_signal = 0;
    signal_before_spawn = 0;
    ::sigaction(SIGINT, &before_interrupt_, nullptr);
    ::sigaction(SIGTERM, &before_terminate_, nullptr);
  }
  WhileChildRuns(const WhileChildRuns&) = delete;
  WhileChildRuns& operator=(const WhileChildRuns&) = delete;

 private:
  struct sigaction before_interrupt_ {};
  struct sigaction before_terminate_ {};
};

// The child's SIGINT and SIGTERM at their defaults, whatever the parent does with them while it waits.
class DefaultSignals {
 public:
  DefaultSignals() {
    posix_spawnattr_init(&attributes_);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attributes_, &defaults);
    posix_spawnattr_setflags(&attributes_, POSIX_SPAWN_SETSIGDEF);
  }
  ~DefaultSignals() { posix_spawnattr_destroy(&attributes_); }
  DefaultSignals(const DefaultSignals&) = delete;
  DefaultSignals& operator=(const DefaultSignals&) = delete;
  const posix_spawnattr_t* get() const { return &attributes_; }

 private:
  posix_spawnattr_t attributes_;
};

}  // namespace

bool is_python_command(const std::string& name) { return name == "report" || name == "compare"; }

int forward_to_python(const std::vector<std::string>& args) {
  const std::string installed = installed_package_dir();
  const Interpreter chosen = interpreter();
  const std::string& python = chosen.path;
  StartedSignal started;
  std::vector<std::string> argv_storage = {python, "-c", bootstrap, std::to_string(started.write_end())};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::vector<std::string> env_storage = {"PYTHONPATH=" + python_path(installed)};
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "PYTHONPATH=", 11) != 0) env_storage.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  const WhileChildRuns waiting;
  const DefaultSignals child_signals;
  pid_t child = 0;
  if (const int failed = posix_spawnp(&child, python.c_str(), nullptr, child_signals.get(), argv.data(), envp.data()))
    throw RuntimeFailure(fmt::format("ferry {} runs in Python, and '{}' could not be started ({}); set FERRY_PYTHON "
                                     "to a Python 3 with matplotlib",
                                     args.at(0), python, std::strerror(failed)));
  child_to_signal = child;
  if (signal_before_spawn != 0) ::kill(child, signal_before_spawn);
  started.close_write_end();
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw RuntimeFailure(fmt::format("waiting for '{}': {}", python, std::strerror(errno)));
  if (WIFEXITED(status) && !started.started())
    throw RuntimeFailure(fmt::format("ferry {} runs in Python, and '{}' ({}) exited with status {} without running "
                                     "ferry's Python code; set FERRY_PYTHON to a Python 3 with matplotlib",
                                     args.at(0), python, chosen.origin, WEXITSTATUS(status)));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  throw RuntimeFailure(fmt::format("'{}' running ferry {} was killed by signal {}", python, args.at(0),
                                   WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}

}  // namespace ferry
