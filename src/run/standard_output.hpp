#pragma once
// `-` as an output path means standard output. For the length of one command
// line ferry_main names its two streams here: `-` writes to its `out` (the
// program's standard output, or a test's stream), and once an option names
// `-` the banner and tables move to its `err`, so that a pipe holds only the
// file: `ferry run link --json - | jq`.
#include <ostream>
#include <string>

namespace ferry {

class StandardOutputScope {
 public:
  // `tables` is the stream the commands print their banner and tables to; it starts as `out`.
  StandardOutputScope(std::ostream& out, std::ostream& tables, std::ostream& err);
  ~StandardOutputScope();
  StandardOutputScope(const StandardOutputScope&) = delete;
  StandardOutputScope& operator=(const StandardOutputScope&) = delete;

 private:
  StandardOutputScope* outer_;
  std::ostream& out_;
  std::ostream& tables_;
  std::ostream& err_;
  std::string taken_by_;  // the option whose file goes to standard output

  friend std::string take_standard_output(const std::string& option);
  friend std::ostream& standard_output();
};

// `option` (e.g. "--json") names `-`: its file goes to standard output and
// the tables to standard error. Returns why it cannot ("" when it can):
// another option has standard output already.
std::string take_standard_output(const std::string& option);

// Where `-` writes: the `out` of the ferry_main call under way, else std::cout.
std::ostream& standard_output();

}  // namespace ferry
