#include "cli/standard_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ferry {

bool keep_standard_descriptors_open() {
  bool output_closed = false;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == 1) output_closed = true;
    // open() takes the lowest free number, which is this one: 0 and 1 before it are open by now.
    const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened != fd && opened >= 0) ::close(opened);
  }
  return output_closed;
}

CheckedOutput::CheckedOutput(int fd, bool closed) : fd_(fd) {
  if (closed) failure_ = std::strerror(EBADF);
  setp(buffer_, buffer_ + sizeof buffer_);
}

CheckedOutput::~CheckedOutput() { flush_buffer(); }

bool CheckedOutput::flush_buffer() {
  const char* at = pbase();
  const char* const end = pptr();
  setp(buffer_, buffer_ + sizeof buffer_);  // what could not be written is dropped with the cause kept
  if (!failure_.empty()) return false;
  while (at < end) {
    const ssize_t written = ::write(fd_, at, static_cast<std::size_t>(end - at));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      failure_ = written < 0 ? std::strerror(errno) : "the descriptor took no bytes";
      return false;
    }
    at += written;
  }
  return true;
}

CheckedOutput::int_type CheckedOutput::overflow(int_type c) {
  if (!flush_buffer()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

int CheckedOutput::sync() { return flush_buffer() ? 0 : -1; }

}  // namespace ferry
