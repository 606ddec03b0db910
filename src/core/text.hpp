#pragma once
#include <string>
#include <string_view>

namespace ferry {

// "a,b,c" from items, each turned to text by `text`.
template <class Range, class Text>
std::string join(const Range& items, std::string_view separator, Text text) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out.append(separator);
    out.append(text(item));
  }
  return out;
}

}  // namespace ferry
