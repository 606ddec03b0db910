#pragma once
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

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

// "a,b,,c" -> {"a", "b", "", "c"}: empty items are kept for the caller to reject.
inline std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> items;
  for (;;) {
    const auto at = text.find(separator);
    items.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return items;
    text.remove_prefix(at + 1);
  }
}

// A measured figure against its model, as the residual tables print it: 1.053 -> "+5.3%".
inline std::string residual_text(double ratio) { return fmt::format("{:+.1f}%", 100 * (ratio - 1)); }

}  // namespace ferry
