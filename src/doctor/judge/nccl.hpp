#pragma once
// `ferry doctor`'s NCCL check: per pair of selected GPUs, NCCL's b(2 MiB) of
// the ring of the two held against p2p-ce's on the same pair, naming the NCCL
// variables in force; any wrong word of either transport fails. Pure: the
// pairs come from doctor/measure/nccl.hpp.
#include <string>
#include <utility>
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// One finding per measured pair ("nccl vs p2p-ce at 2 MiB"), and one for the
// pairs left out. `environment`: the variables that change data paths, as set
// (Inputs::environment); the NCCL ones are named in the basis and the cause.
std::vector<Finding> judge_nccl(const std::vector<NcclPair>& pairs,
                                const std::vector<std::pair<std::string, std::string>>& environment);

}  // namespace ferry::doctor
