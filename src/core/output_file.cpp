#include "core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace ferry {
namespace {

// What a path names once its symbolic links are followed.
struct Destination {
  std::string path;
  mode_t type = 0;  // S_IFREG, S_IFIFO, ...; 0 when nothing is there yet
};

// Follows `path` through symbolic links (a relative one from its own folder)
// to what it finally names, which need not exist. Returns the cause of a
// failure, "" on success.
std::string follow_links(const std::string& path, Destination& to) {
  std::string at = path;
  for (int links = 0; links <= 40; ++links) {  // Linux's own limit before ELOOP
    struct stat s {};
    if (::lstat(at.c_str(), &s) != 0) {
      if (errno != ENOENT) return std::strerror(errno);
      to = {at, 0};
      return "";
    }
    if (!S_ISLNK(s.st_mode)) {
      to = {at, s.st_mode & S_IFMT};
      return "";
    }
    std::error_code failed;
    const std::filesystem::path target = std::filesystem::read_symlink(at, failed);
    if (failed) return failed.message();
    at = target.is_absolute() ? target.string() : (std::filesystem::path(at).parent_path() / target).string();
  }
  return std::strerror(ELOOP);
}

// What `path` names: a FIFO, device or socket by the name given, as the
// kernel follows its links (/dev/stdout reaches a pipe through /proc's
// "pipe:[N]", which is no path); a regular file, or nothing yet, at the end
// of its links, where the new file is renamed in.
std::string find_destination(const std::string& path, Destination& to) {
  struct stat s {};
  if (::stat(path.c_str(), &s) == 0 && !S_ISREG(s.st_mode)) {
    to = {path, s.st_mode & S_IFMT};
    return "";
  }
  return follow_links(path, to);
}

std::string why_not_a_file(mode_t type) {
  if (type == S_IFDIR) return "it is a folder";
  if (type == S_IFSOCK) return "it is a socket, which cannot be opened as a file: give a file, a FIFO or -";
  return "";
}

// A FIFO or a device: opened as it is and written, never created or renamed over.
std::string write_in_place(const Destination& to, const std::string& content) {
  if (std::string why = why_not_a_file(to.type); !why.empty()) return why;
  const int fd = ::open(to.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  std::string why = write_all(fd, to.path, content);
  if (::close(fd) != 0 && why.empty()) why = std::strerror(errno);
  return why;
}

std::string write_to_stream(const std::string& content, std::ostream& out) {
  errno = 0;
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.flush();
  if (out) return "";
  const int cause = errno;
  out.clear();
  return cause != 0 ? std::strerror(cause) : "the stream refused it";
}

// The cause, naming what PATH links to when it is a link.
std::string with_link_target(const std::string& path, const Destination& to, const std::string& why) {
  if (to.path.empty() || to.path == path) return why;
  return fmt::format("{} (it links to '{}')", why, to.path);
}

// Whether `to` takes a write, tried without waiting, leaving a file behind or replacing anything.
std::string probe(const Destination& to) {
  switch (to.type) {
    case 0:
    case S_IFREG: {
      std::string temporary;
      const int fd = create_temporary_beside(to.path, temporary);
      if (fd < 0) return std::strerror(errno);
      ::close(fd);
      std::remove(temporary.c_str());
      return "";
    }
    case S_IFIFO: return ::faccessat(AT_FDCWD, to.path.c_str(), W_OK, AT_EACCESS) == 0 ? "" : std::strerror(errno);
    case S_IFDIR:
    case S_IFSOCK: return why_not_a_file(to.type);
    default: {  // a device
      const int fd = ::open(to.path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) return std::strerror(errno);
      ::close(fd);
      return "";
    }
  }
}

}  // namespace

void write_output(const std::string& path, const std::string& content, std::ostream& standard_output) {
  if (path == "-") {
    if (const std::string why = write_to_stream(content, standard_output); !why.empty())
      throw RuntimeFailure(fmt::format("cannot write to standard output (-): {}", why));
    return;
  }
  Destination to;
  std::string why = find_destination(path, to);
  if (why.empty())
    why = to.type == 0 || to.type == S_IFREG ? replace_file(to.path, content) : write_in_place(to, content);
  if (!why.empty()) throw RuntimeFailure(fmt::format("cannot write '{}': {}", path, with_link_target(path, to, why)));
}

std::string why_not_writable(const std::string& path) {
  if (path == "-") return "";
  Destination to;
  std::string why = find_destination(path, to);
  if (why.empty()) why = probe(to);
  return why.empty() ? "" : with_link_target(path, to, why);
}

std::string final_destination(const std::string& path) {
  Destination to;
  return find_destination(path, to).empty() && !to.path.empty() ? to.path : path;
}

}  // namespace ferry
