#include <unistd.h>

#include <iostream>

#include "cli/cli.hpp"
#include "cli/standard_streams.hpp"
#include "core/error.hpp"
#include "transport/world.hpp"

int main(int argc, char** argv) {
  const bool output_closed = ferry::keep_standard_descriptors_open();
  try {
    ferry::start_world();  // MPI, when mpirun started this process
  } catch (const ferry::Error& e) {
    std::cerr << "ferry: " << e.what() << "\n";
    return static_cast<int>(e.code());
  }
  ferry::CheckedOutput checked(STDOUT_FILENO, output_closed);
  std::ostream out(&checked);
  int code = ferry::ferry_main(std::vector<std::string>(argv + 1, argv + argc), out, std::cerr);
  out.flush();
  // Results files are written by now; a table that did not reach standard output is a failure all the same.
  // Exit 2 and 3 have said their cause already (an output option given `-` names this one).
  const bool said = code == static_cast<int>(ferry::ExitCode::bad_input) ||
                    code == static_cast<int>(ferry::ExitCode::runtime_failure);
  if (!checked.failure().empty() && !said) {
    std::cerr << "ferry: cannot write to standard output: " << checked.failure() << "\n";
    code = static_cast<int>(ferry::ExitCode::runtime_failure);
  }
  ferry::stop_world();
  return code;
}
