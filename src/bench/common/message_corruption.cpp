#include "bench/common/message_corruption.hpp"

#include "core/units.hpp"

namespace ferry {

MessageCorruption parse_message_corruption(std::string_view text, const char* variable) {
  const std::size_t at = text.find('@');
  MessageCorruption corruption{.bytes = parse_bytes(text.substr(0, at))};
  if (at != std::string_view::npos) corruption.index = parse_positive_int(text.substr(at + 1), variable) - 1;
  return corruption;
}

}  // namespace ferry
