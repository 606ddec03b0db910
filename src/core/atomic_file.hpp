#pragma once
#include <string>

namespace ferry {

// Test hook: files written under this folder run out of space half way.
constexpr const char* disk_full_variable = "FERRY_FAULT_DISK_FULL";

// Writes all of `content` to the open file `fd`, which holds `path` (the
// disk-full hook cuts the write short there). Returns the cause of a failure
// (strerror's words), "" when every byte was written.
std::string write_all(int fd, const std::string& path, const std::string& content);

// Creates a file beside `path` that no other file has the name of (a stale
// temporary file is never reused, so nothing is truncated), open for
// writing; sets `temporary` to its name. Returns -1 with errno when it cannot.
int create_temporary_beside(const std::string& path, std::string& temporary);

// Writes `content` to the regular file (or new path) `path` through a
// temporary file beside it and a rename, so a reader never sees half a file.
// Returns the cause of a failure, "" on success; no temporary file is left.
std::string replace_file(const std::string& path, const std::string& content);

// replace_file() that throws RuntimeFailure naming the path and the cause.
void write_file_atomically(const std::string& path, const std::string& content);

// Writes `content` for `wanted` (a path that could not be written) into the
// system's temporary folder, and returns where: the results of a finished
// run are not lost to a full disk or a folder removed meanwhile.
std::string write_fallback(const std::string& wanted, const std::string& content);

// Reads a whole file; throws UsageError naming the path when it cannot.
std::string read_file(const std::string& path);

}  // namespace ferry
