#pragma once
#include <string>

namespace ferry {

// The commit of the source this binary was built from ("a820475", "a820475-dirty"), or "" when the build could
// not tell (cmake/source_commit.cmake): results files name it, so a figure can be traced to its code.
std::string source_commit();

}  // namespace ferry
