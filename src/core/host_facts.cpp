#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

#include "core/machine.hpp"

namespace ferry {

HostFacts read_host_facts() {
  HostFacts host;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) host.hostname = name;

  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      host.cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  host.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0)
    host.memory_bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);

  utsname uts{};
  if (uname(&uts) == 0) host.os = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  return host;
}

}  // namespace ferry
