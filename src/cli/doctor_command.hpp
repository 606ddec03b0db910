#pragma once
// `ferry doctor`: is this machine moving data as fast as it should, and if not, why.
#include "cli/workload.hpp"

namespace ferry {

void add_doctor_command(const Commands& commands);

}  // namespace ferry
