#pragma once
// Progress of a long run, on standard error so that tables on standard output stay clean.
#include <cstdio>
#include <string>

namespace ferry {

class Progress {
 public:
  Progress(std::string workload, bool enabled) : workload_(std::move(workload)), enabled_(enabled) {}
  void step(const std::string& what) const {
    if (enabled_) std::fprintf(stderr, "[%s] %s\n", workload_.c_str(), what.c_str());
  }

 private:
  std::string workload_;
  bool enabled_;
};

}  // namespace ferry
