#include "core/mutant.hpp"

#ifdef FERRY_MUTATION
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

namespace ferry {
namespace {

bool selects(std::string_view selected, std::string_view id) {
  if (selected == "all") return true;
  while (!selected.empty()) {
    const auto comma = selected.find(',');
    if (selected.substr(0, comma) == id) return true;
    if (comma == std::string_view::npos) break;
    selected.remove_prefix(comma + 1);
  }
  return false;
}

void note_reached() {
  static std::atomic<bool> noted{false};
  if (noted.exchange(true)) return;
  const char* path = std::getenv("FERRY_MUTANT_REACHED");
  if (!path || !*path) return;
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) ::close(fd);
}

}  // namespace

bool mutant(std::string_view id) {
  static const std::string selected = [] {
    const char* text = std::getenv("FERRY_MUTANT");
    return std::string(text ? text : "");
  }();
  if (selected.empty() || !selects(selected, id)) return false;
  note_reached();
  return true;
}

}  // namespace ferry
#endif
