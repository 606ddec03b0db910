#pragma once
// The files one command line names, inputs and outputs, as its options give
// them. Once the line is parsed, ferry_main refuses it when an output is also
// an input (`ferry run stream --profile P --json P` would replace the profile
// it reads) or when two outputs are one file (`--json X --csv X` keeps only
// the CSV while both are reported written). Paths are compared as the files
// they finally name, after symbolic links.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ferry {

class CommandFiles {
 public:
  CommandFiles();  // the options validated while it lives record their paths here
  ~CommandFiles();
  CommandFiles(const CommandFiles&) = delete;
  CommandFiles& operator=(const CommandFiles&) = delete;

  // One line naming the options whose files collide, and why that is refused; "" when none do.
  std::string why_colliding() const;

 private:
  struct Named {
    std::string option;  // "--json"
    std::string path;    // as given
    bool output = false;
  };
  CommandFiles* outer_;
  std::vector<Named> named_;

  friend void name_file(const std::string& option, const std::string& path, bool output);
};

// Records `path` for `option` in the CommandFiles of the command line under way (none: nothing is kept).
void name_file(const std::string& option, const std::string& path, bool output);

// The check of an input file option: a path, not an empty one, recorded so that no output replaces it.
// Whether the file can be read is for its reader to say, with what it expected there.
CLI::Validator input_file(const std::string& option);

// Why a path given to `option` is empty, for its validator ("" when it is not).
std::string why_empty(const std::string& option, const std::string& path, const std::string& what);

}  // namespace ferry
