#pragma once
#include <string>

namespace ferry {

// Test hook: files written under this folder run out of space half way.
constexpr const char* disk_full_variable = "FERRY_FAULT_DISK_FULL";

// Writes `content` to `path` through a temporary file beside it and a rename,
// so a reader never sees half a file. Throws RuntimeFailure naming the path.
void write_file_atomically(const std::string& path, const std::string& content);

// Why `path` cannot be written ("" when it can): tried by creating and
// removing the temporary file write_file_atomically() would use, so a run
// refuses a results path it cannot write before it measures anything.
std::string why_not_writable(const std::string& path);

// Writes `content` for `wanted` (a path that could not be written) into the
// system's temporary folder, and returns where: the results of a finished
// run are not lost to a full disk or a folder removed meanwhile.
std::string write_fallback(const std::string& wanted, const std::string& content);

// Reads a whole file; throws UsageError naming the path when it cannot.
std::string read_file(const std::string& path);

}  // namespace ferry
