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

}  // namespace ferry
