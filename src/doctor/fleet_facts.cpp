#include "doctor/fleet_facts.hpp"

#include <fmt/format.h>

namespace ferry::doctor {

std::string rank_name(const RankReport& r) { return fmt::format("{} GPU {} (rank {})", r.host, r.device, r.rank); }

}  // namespace ferry::doctor
