#include "cli/python_command.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "core/error.hpp"

extern char** environ;

namespace ferry {
namespace {

// Loading the package is checked here, so a missing package reads as an
// environment problem (exit 3), not as exit 1, which compare uses for a regression.
constexpr const char* bootstrap =
    "import sys\n"
    "try:\n"
    "    from ferry.__main__ import main\n"
    "except ImportError as e:\n"
    "    print(f'ferry: cannot load the ferry Python package ({e}); pip install ./python, or set PYTHONPATH', "
    "file=sys.stderr)\n"
    "    sys.exit(3)\n"
    "sys.exit(main(sys.argv[1:]))\n";

std::string interpreter() {
  if (const char* chosen = std::getenv("FERRY_PYTHON"); chosen && *chosen) return chosen;
  return FERRY_PYTHON_EXECUTABLE;
}

// PYTHONPATH with the source tree's package first, so the package next to this binary wins.
std::string python_path() {
  const char* existing = std::getenv("PYTHONPATH");
  std::string path = std::filesystem::is_directory(FERRY_PYTHON_DIR "/ferry") ? FERRY_PYTHON_DIR : "";
  if (existing && *existing) {
    if (!path.empty()) path += ':';
    path += existing;
  }
  return path;
}

}  // namespace

bool is_python_command(const std::string& name) { return name == "report" || name == "compare"; }

int forward_to_python(const std::vector<std::string>& args) {
  const std::string python = interpreter();
  std::vector<std::string> argv_storage = {python, "-c", bootstrap};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::vector<std::string> env_storage = {"PYTHONPATH=" + python_path()};
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "PYTHONPATH=", 11) != 0) env_storage.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t child = 0;
  if (const int failed = posix_spawnp(&child, python.c_str(), nullptr, nullptr, argv.data(), envp.data()))
    throw RuntimeFailure(fmt::format("ferry {} runs in Python, and '{}' could not be started ({}); set FERRY_PYTHON "
                                     "to a Python 3 with matplotlib",
                                     args.at(0), python, std::strerror(failed)));
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw RuntimeFailure(fmt::format("waiting for '{}': {}", python, std::strerror(errno)));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  throw RuntimeFailure(fmt::format("'{}' running ferry {} was killed by signal {}", python, args.at(0),
                                   WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}

}  // namespace ferry
