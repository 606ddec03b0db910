#pragma once
#include <string>
#include <vector>

namespace ferry {

// `ferry report` and `ferry compare` live in the Python package (python/ferry),
// where matplotlib is; the C++ CLI forwards them so a user has one command name.
bool is_python_command(const std::string& name);

// Runs `python -m ferry ARGS...` and returns its exit code. The interpreter is
// $FERRY_PYTHON, else the one found when ferry was configured while it exists,
// else python3; the package is the one installed beside this binary,
// else this source tree's python/, else wherever pip put it.
// Throws RuntimeFailure when no interpreter can be started, when it exits
// without running ferry's Python code (/bin/false, a Python 2), or when it dies
// on a signal: exit 3, never a status compare gives its own meaning.
int forward_to_python(const std::vector<std::string>& args);

}  // namespace ferry
