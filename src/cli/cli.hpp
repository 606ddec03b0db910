#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace ferry {

// The whole command line: parses `args` (without the program name), runs, and
// returns the exit code. Tables go to `out`, errors to `err`.
int ferry_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ferry
