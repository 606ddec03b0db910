#include "run/standard_output.hpp"

#include <fmt/format.h>

#include <iostream>

namespace ferry {
namespace {

StandardOutputScope* current = nullptr;

}  // namespace

StandardOutputScope::StandardOutputScope(std::ostream& out, std::ostream& tables, std::ostream& err)
    : outer_(current), out_(out), tables_(tables), err_(err) {
  tables_.rdbuf(out_.rdbuf());
  current = this;
}

StandardOutputScope::~StandardOutputScope() { current = outer_; }

std::string take_standard_output(const std::string& option) {
  if (!current) return "";
  if (!current->taken_by_.empty() && current->taken_by_ != option)
    return fmt::format("{} writes to standard output (-) already, which holds one file: give {} a path",
                       current->taken_by_, option);
  current->taken_by_ = option;
  current->tables_.rdbuf(current->err_.rdbuf());
  return "";
}

std::ostream& standard_output() { return current ? current->out_ : std::cout; }

}  // namespace ferry
