#pragma once
// Text tables for people.
#include <string>
#include <vector>

#include "core/results.hpp"

namespace ferry {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string render() const;  // columns padded to their widest cell, numbers right-aligned

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Every section of a workload as a table: its parameters, the figure's median
// and spread, the model, % of model and the check; then skipped cases and notes.
std::string render_workload(const WorkloadResult& result);

// The lines above the tables: backend, devices, and on the emulator a warning.
std::string render_banner(const Machine& machine);

}  // namespace ferry
