#include "core/atomic_file.hpp"

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
// written under FOLDER runs out of space half way, as on a full disk.
bool disk_full_under(const std::string& path) {
  const char* full = std::getenv(disk_full_variable);
  if (!full || !*full) return false;
  std::error_code ec;
  const auto folder = std::filesystem::weakly_canonical(full, ec);
  const auto file = std::filesystem::weakly_canonical(path, ec);
  const auto [end, _] = std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
  return end == folder.end();
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  const std::size_t room = disk_full_under(path) ? content.size() / 2 : content.size();
  const bool written = std::fwrite(content.data(), 1, room, file) == content.size();
  if (room < content.size()) errno = ENOSPC;
  const bool flushed = written && std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  const int saved_errno = errno;
  std::fclose(file);
  if (!written || !flushed) {
    std::remove(temporary.c_str());
    throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, std::strerror(saved_errno)));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(temporary.c_str());
    throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, std::strerror(rename_errno)));
  }
}

std::string why_not_writable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "it is a folder";
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) return std::strerror(errno);
  std::fclose(file);
  std::remove(temporary.c_str());
  return "";
}

std::string write_fallback(const std::string& wanted, const std::string& content) {
  const std::string name = std::filesystem::path(wanted).filename().string();
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
