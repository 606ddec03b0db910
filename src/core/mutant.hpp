#pragma once
// Source mutants (scripts/source-mutation.sh, docs/reliability.md): in the
// mutation build (CMake FERRY_MUTATION=ON, never the product) each entry of
// scripts/mutants/catalogue.toml is compiled into a copy of its file as
// `(::ferry::mutant("ID") ? (replacement) : (original))`, so that one build
// holds every mutant and FERRY_MUTANT=ID switches one on at run time. Only the
// generated copies include this header; the source tree never calls it.
#include <string_view>

namespace ferry {

#ifdef FERRY_MUTATION
// True when FERRY_MUTANT names `id` (a comma-separated list of ids, or `all`).
// The first time it is true in a process it creates the file that
// FERRY_MUTANT_REACHED names, if set: the step tells a mutant whose tests never
// ran its site from one they ran and did not notice.
bool mutant(std::string_view id);
#endif

}  // namespace ferry
