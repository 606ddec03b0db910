#pragma once
// A row's parameters by key, as the workload tests read them.
#include <stdexcept>
#include <string>
#include <variant>

#include "core/results.hpp"

namespace ferry {

// The value of the row's parameter `key`; throws when the row has none.
inline const ParamValue& param(const Row& row, const std::string& key) {
  for (const auto& [k, value] : row.params)
    if (k == key) return value;
  throw std::runtime_error("no parameter " + key);
}

// The same as text: a string as it is, a whole number in decimal, and
// "(no KEY)" when the row has none, which no test compares equal to a value.
inline std::string text_of(const Row& row, const std::string& key) {
  for (const auto& [k, value] : row.params)
    if (k == key)
      return std::holds_alternative<std::string>(value) ? std::get<std::string>(value)
                                                        : std::to_string(std::get<std::int64_t>(value));
  return "(no " + key + ")";
}

}  // namespace ferry
