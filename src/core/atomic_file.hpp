#pragma once
#include <string>

namespace ferry {

// Writes `content` to `path` through a temporary file beside it and a rename,
// so a reader never sees half a file. Throws RuntimeFailure naming the path.
void write_file_atomically(const std::string& path, const std::string& content);

// Reads a whole file; throws UsageError naming the path when it cannot.
std::string read_file(const std::string& path);

}  // namespace ferry
