#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace ferry {
namespace {

// Test hook (docs/reliability.md): with FERRY_FAULT_DISK_FULL=FOLDER, a file
// written under FOLDER runs out of space half way, as on a full disk. Both are
// made absolute first: weakly_canonical leaves a relative path relative when
// its first part does not exist yet (a new file in the current folder).
bool disk_full_under(const std::string& path) {
  const char* full = std::getenv(disk_full_variable);
  if (!full || !*full) return false;
  std::error_code ec;
  const auto folder = std::filesystem::weakly_canonical(std::filesystem::absolute(full, ec), ec);
  const auto file = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  const auto [end, _] = std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
  return end == folder.end();
}

}  // namespace

std::string write_all(int fd, const std::string& path, const std::string& content) {
  const std::size_t room = disk_full_under(path) ? content.size() / 2 : content.size();
  std::size_t written = 0;
  while (written < room) {
    const ssize_t n = ::write(fd, content.data() + written, room - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::strerror(errno);
    written += static_cast<std::size_t>(n);
  }
  return written < content.size() ? std::strerror(ENOSPC) : "";
}

int create_temporary_beside(const std::string& path, std::string& temporary) {
  for (int attempt = 0;; ++attempt) {
    temporary = attempt == 0 ? fmt::format("{}.tmp.{}", path, ::getpid())
                             : fmt::format("{}.tmp.{}.{}", path, ::getpid(), attempt);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST || attempt == 100) return fd;
  }
}

std::string replace_file(const std::string& path, const std::string& content) {
  std::string temporary;
  const int fd = create_temporary_beside(path, temporary);
  if (fd < 0) return std::strerror(errno);
  std::string why = write_all(fd, path, content);
  if (why.empty() && ::fsync(fd) != 0) why = std::strerror(errno);
  if (::close(fd) != 0 && why.empty()) why = std::strerror(errno);
  if (why.empty() && std::rename(temporary.c_str(), path.c_str()) != 0) why = std::strerror(errno);
  if (!why.empty()) std::remove(temporary.c_str());
  return why;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  if (const std::string why = replace_file(path, content); !why.empty())
    throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, why));
}

std::string write_fallback(const std::string& wanted, const std::string& content) {
  const std::string name = wanted == "-" ? "stdout" : std::filesystem::path(wanted).filename().string();
  const std::string fallback =
      (std::filesystem::temp_directory_path() / fmt::format("ferry-unsaved-{}-{}", ::getpid(), name)).string();
  write_file_atomically(fallback, content);
  return fallback;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace ferry
