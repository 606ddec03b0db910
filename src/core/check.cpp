#include "core/check.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

#ifdef FERRY_MUTATION
namespace ferry {

bool check_forced_to_pass(std::string_view check) {
  static const std::string forced = [] {
    const char* name = std::getenv("FERRY_FORCE_PASS");
    const std::string text = name ? name : "";
    if (!text.empty() && std::find(std::begin(check_names), std::end(check_names), text) == std::end(check_names)) {
      // A misspelt name would force nothing and let the mutation step pass for the wrong reason.
      std::fprintf(stderr, "ferry (mutation build): FERRY_FORCE_PASS='%s' names no check\n", text.c_str());
      std::abort();
    }
    return text;
  }();
  return !forced.empty() && forced == check;
}

}  // namespace ferry
#endif
