#include <iostream>

#include "cli/cli.hpp"
#include "core/error.hpp"
#include "transport/world.hpp"

int main(int argc, char** argv) {
  try {
    ferry::start_world();  // MPI, when mpirun started this process
  } catch (const ferry::Error& e) {
    std::cerr << "ferry: " << e.what() << "\n";
    return static_cast<int>(e.code());
  }
  const int code = ferry::ferry_main(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
  std::cout.flush();
  ferry::stop_world();
  return code;
}
