// Reading numbers out of files a user hands ferry.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace ferry {

// A whole-number field. nlohmann's get<int> converts a float or a number out
// of range with undefined behaviour (found by fuzzing), so both are refused
// with std::range_error, which each file reader turns into its own message.
template <class Int>
Int whole_number(const nlohmann::json& object, const char* key) {
  const nlohmann::json& v = object.at(key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<Int>::max()))
    return static_cast<Int>(v.get<std::uint64_t>());
  if constexpr (std::is_signed_v<Int>)
    if (v.is_number_integer() && v.get<std::int64_t>() >= std::numeric_limits<Int>::min() &&
        v.get<std::int64_t>() <= std::numeric_limits<Int>::max())
      return static_cast<Int>(v.get<std::int64_t>());
  throw std::range_error(fmt::format("\"{}\" is {}, not a whole number in range", key, v.dump()));
}

template <class Int>
Int whole_number_or(const nlohmann::json& object, const char* key, Int fallback) {
  return object.contains(key) ? whole_number<Int>(object, key) : fallback;
}

}  // namespace ferry
