#pragma once
// The test hook FERRY_FAULT_DOCTOR=CONDITION[,CONDITION...]: it changes the
// facts doctor's pass read before they are judged, so each diagnosis can be
// provoked on the emulator (docs/doctor.md lists the conditions).
#include <string_view>

#include "doctor/checks.hpp"

namespace ferry::doctor {

inline constexpr const char* fault_variable = "FERRY_FAULT_DOCTOR";

// Applies every condition of `hook` to `in`. Throws UsageError naming a
// condition it does not know, or a malformed one (the message lists them).
void apply_fault(std::string_view hook, Inputs& in);

// A condition's number (a device, a rank): `what` names it in the UsageError
// for anything but a whole number >= 0.
int parse_hook_number(std::string_view text, std::string_view condition, std::string_view what);

}  // namespace ferry::doctor
