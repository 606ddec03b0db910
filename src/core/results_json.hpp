#pragma once
#include <string>

#include "core/results.hpp"

namespace ferry {

// The results document described in docs/results.md.
std::string results_to_json(const Results& results);

// One line per row with its parameters and statistics.
std::string results_to_csv(const Results& results);

}  // namespace ferry
