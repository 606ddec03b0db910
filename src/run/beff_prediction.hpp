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

// One hop between nodes, and where its figures came from in words, for the note.
struct NetworkHop {
  model::LinkTerms terms;
  std::string origin;
  std::string source;  // in a word, for the rows: "measured", "given" or "default"
};

struct LargerRings {
  std::vector<int> devices;  // the ring sizes to predict
  int per_node = 8;
  NetworkHop network;  // every transport's hop between nodes, but those `measured_network` has
  // Per transport, the hop as a ring across hosts measured it (--network FILE), and that file.
  std::vector<std::pair<std::string, NetworkHop>> measured_network;
  std::string measured_network_origin;
  // A ring measured at one of the predicted sizes (--measured FILE): each row of
  // its size is set beside it. Null when none was given.
  const model::TransportTerms* measured = nullptr;

  const NetworkHop& network_for(const std::string& transport) const;
};

// The prediction's rows, one per transport and ring. `failed_input` names the
// file whose terms failed verification, marking every row and the notes; "" when they passed.
WorkloadResult predict_larger_rings(const model::TransportTerms& terms, const LargerRings& rings,
                                    const std::string& failed_input);

}  // namespace ferry
