#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace ferry {

// "fnv1a64:<16 hex digits>": FNV-1a (64 bits) of a JSON value's canonical
// form, which python/ferry/checksum.py computes alike from the file as read
// back, so `ferry compare` can tell rows edited after the run. Not a defence
// against someone who recomputes it: a check that a file is as ferry wrote it.
//
// The canonical form, chosen so that both languages print it byte for byte
// (a JSON library's float printing differs: nlohmann's Grisu2 is not always
// the shortest form Python prints):
//   null, true, false   as written
//   integer             decimal (so 50 and 50.0, the same JSON number, read alike)
//   float               printf "%.17g" (correctly rounded in glibc and in
//                       Python); a NaN or infinity as null, as the file holds it
//   string              "s" + UTF-8 byte count + ":" + the bytes
//   array               "[" + items joined by "," + "]"
//   object              "{" + key ":" value, sorted by key bytes, joined by "," + "}"
std::string json_checksum(const nlohmann::ordered_json& value);

}  // namespace ferry
