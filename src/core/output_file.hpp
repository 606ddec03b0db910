#pragma once
// Where every file ferry writes goes (results, rows, trace, machine profile):
// the rules of docs/reliability.md, "Where output goes".
#include <ostream>
#include <string>

namespace ferry {

// Writes `content` where `path` points:
//   "-"                            to `standard_output`
//   a symbolic link                to what it finally names, by the rules below (a dangling link's target is
//                                  created); the link stays a link
//   a regular file, or no file     through a temporary file beside it and a rename, so no reader sees half a file
//   a FIFO, a device, a socket     opened and written in place, never replaced or renamed over
// Throws RuntimeFailure naming `path` and the cause (No space left on device, Broken pipe, ...).
void write_output(const std::string& path, const std::string& content, std::ostream& standard_output);

// Why `path` cannot be written ("" when it can), found before a run without
// waiting, leaving a file behind or replacing anything: "-" always can; a
// regular file's folder must take a new file (one is created and removed);
// a FIFO needs write permission only (opening it would hand a reader already
// waiting an end of file); a device is opened for writing and closed; a
// socket cannot be opened at all. A link is checked at what it names.
std::string why_not_writable(const std::string& path);

// Where write_output() puts a file for `path`: what its symbolic links finally name (which need not exist yet),
// or `path` itself when it is not a link or its links cannot be followed.
std::string final_destination(const std::string& path);

}  // namespace ferry
