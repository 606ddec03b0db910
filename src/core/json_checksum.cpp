#include "core/json_checksum.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

namespace ferry {
namespace {

using nlohmann::ordered_json;

void append_string(std::string& out, std::string_view s) {
  out += fmt::format("s{}:", s.size());
  out += s;
}

void append_canonical(std::string& out, const ordered_json& v) {
  switch (v.type()) {
    case ordered_json::value_t::null: out += "null"; return;
    case ordered_json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return;
    case ordered_json::value_t::number_integer: out += std::to_string(v.get<std::int64_t>()); return;
    case ordered_json::value_t::number_unsigned: out += std::to_string(v.get<std::uint64_t>()); return;
    case ordered_json::value_t::number_float: {
      const double x = v.get<double>();
      if (!std::isfinite(x)) {
        out += "null";
        return;
      }
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", x);
      out += text;
      return;
    }
    case ordered_json::value_t::string: append_string(out, v.get_ref<const std::string&>()); return;
    case ordered_json::value_t::array: {
      out += '[';
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += ',';
        append_canonical(out, v[i]);
      }
      out += ']';
      return;
    }
    case ordered_json::value_t::object: {
      // Each key with its value, so that sorting needs no lookup afterwards.
      std::vector<std::pair<std::string_view, const ordered_json*>> members;
      for (const auto& [key, value] : v.items()) members.emplace_back(key, &value);
      std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      out += '{';
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (i > 0) out += ',';
        append_string(out, members[i].first);
        out += ':';
        append_canonical(out, *members[i].second);
      }
      out += '}';
      return;
    }
    case ordered_json::value_t::binary:
    case ordered_json::value_t::discarded: break;
  }
  out += "null";  // not in a results file: binary and discarded values are never written
}

}  // namespace

std::string json_checksum(const ordered_json& value) {
  std::string canonical;
  append_canonical(canonical, value);
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const unsigned char byte : canonical) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return fmt::format("fnv1a64:{:016x}", hash);
}

}  // namespace ferry
