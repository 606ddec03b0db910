#pragma once
// The command line as a test runs it: ferry_main with its output captured.
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace ferry {

struct Outcome {
  int code;
  std::string out, err;
};

inline Outcome ferry(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = ferry_main(args, out, err);
  return {code, out.str(), err.str()};
}

// A fast emulated link run; the test adds what it is about.
inline std::vector<std::string> quick_link(std::vector<std::string> more) {
  std::vector<std::string> args = {"run", "link", "--backend", "emu", "--quick", "--quiet", "--round-trips", "200"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace ferry
