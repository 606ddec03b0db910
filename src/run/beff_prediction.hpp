#pragma once
// `ferry model beff`: b_eff predicted for rings larger than this machine, by
// scaling each transport's measured terms (model/beff_model.hpp).
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "core/results.hpp"
#include "model/beff_model.hpp"

namespace ferry {

// The terms of a quick beff run over every device of `backend`; its rows join `results`.
model::TransportTerms measure_transport_terms(Backend& backend, Results& results, bool quiet);

// "8 rows FAILED their check: beff ring (transport=p2p-ce, MSize bytes=4 KiB); ...; and 3 more"
std::string failures_in_words(const model::TransportTerms& terms);

struct LargerRings {
  std::vector<int> devices;  // the ring sizes to predict
  int per_node = 8;
  model::LinkTerms network;    // one hop between nodes
  std::string network_origin;  // the network's figures in words, for the note
};

// The prediction's rows, one per transport and ring. `failed_input` names the
// file whose terms failed verification, marking every row and the notes; "" when they passed.
WorkloadResult predict_larger_rings(const model::TransportTerms& terms, const LargerRings& rings,
                                    const std::string& failed_input);

}  // namespace ferry
