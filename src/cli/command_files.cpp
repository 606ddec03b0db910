#include "cli/command_files.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "core/output_file.hpp"

namespace ferry {
namespace {

CommandFiles* current = nullptr;

// What a path finally names: the file itself where it exists (so a link and its target, or two spellings of one
// path, are one file), else the absolute path at which it would be created.
struct FileIdentity {
  std::optional<std::pair<dev_t, ino_t>> file;
  std::string path;
  bool shareable = false;  // a device such as /dev/null takes any number of outputs

  bool operator==(const FileIdentity& other) const {
    return file || other.file ? file == other.file : path == other.path;
  }
};

FileIdentity identity_of(const std::string& path) {
  struct stat s {};
  if (::stat(path.c_str(), &s) == 0)
    return {std::make_pair(s.st_dev, s.st_ino), path, S_ISCHR(s.st_mode) || S_ISBLK(s.st_mode)};
  std::error_code failed;
  const std::filesystem::path created = std::filesystem::weakly_canonical(final_destination(path), failed);
  return {std::nullopt, failed ? path : created.string(), false};
}

std::string quoted(const std::string& path) { return path == "-" ? "standard output (-)" : "'" + path + "'"; }

}  // namespace

CommandFiles::CommandFiles() : outer_(current) { current = this; }

CommandFiles::~CommandFiles() { current = outer_; }

std::string CommandFiles::why_colliding() const {
  std::vector<FileIdentity> identities;
  for (const Named& n : named_) identities.push_back(identity_of(n.path));
  for (std::size_t later = 0; later < named_.size(); ++later) {
    if (!named_[later].output || named_[later].path == "-" || identities[later].shareable) continue;
    for (std::size_t earlier = 0; earlier < named_.size(); ++earlier) {
      if (earlier == later || named_[earlier].path == "-" || !(identities[earlier] == identities[later])) continue;
      const Named& out = named_[later];
      const Named& other = named_[earlier];
      if (!other.output)
        return fmt::format("{} would write {}, the file {} reads: the run would replace its own input; give {} "
                           "another path",
                           out.option, quoted(out.path), other.option, out.option);
      if (earlier < later)
        return fmt::format("{} and {} both write {}: one file holds one output; give each a path of its own",
                           other.option, out.option,
                           other.path == out.path
                               ? quoted(out.path)
                               : fmt::format("{} and {}, one file", quoted(other.path), quoted(out.path)));
    }
  }
  return "";
}

void name_file(const std::string& option, const std::string& path, bool output) {
  if (current) current->named_.push_back({option, path, output});
}

std::string why_empty(const std::string& option, const std::string& path, const std::string& what) {
  if (!path.empty()) return "";
  return fmt::format("an empty path (an unset shell variable?): give {} {}", option, what);
}

CLI::Validator input_file(const std::string& option) {
  return CLI::Validator(
      [option](std::string& path) {
        if (std::string why = why_empty(option, path, "the file to read"); !why.empty()) return why;
        name_file(option, path, false);
        return std::string();
      },
      "FILE");
}

}  // namespace ferry
