#pragma once
// Every verification in ferry goes through one of these, under a name from
// check_names, so that CI can prove it is able to fail (docs/reliability.md):
// the mutation build (CMake FERRY_MUTATION=ON, never the product) reads
// FERRY_FORCE_PASS=NAME and makes that one check say "intact" whatever it
// found; scripts/mutation.sh then expects some test to fail. A check that no
// test notices when it is blind is a check the suite does not hold.
#include <cstdint>
#include <string_view>

namespace ferry {

// Each check's name: the workload, then what it compares.
inline constexpr std::string_view check_names[] = {
    "link.copy",        // a copied buffer (host, device, peer, zero-copy) against its source's pattern
    "link.flag_echo",   // the persistent kernel's echo carries the doorbell's sequence number
    "link.chunk_echo",  // every echo carries its number, and every 4 KiB chunk the echo copied arrived whole
    "link.chain",       // a kernel chain's words each one higher per kernel, a read chain's end
    "link.peer_flag",   // every answer of the peers' kernel flag ping-pong carries its round trip's tag
    "stream.output",    // every chunk's output words
    "overlap.sum",      // c = a + b, every element
    "dispatch.sorted",  // the sorted keys against a host sort of the same keys
    "beff.message",     // every received message against its sender's pattern
    "topo.message",     // every round's received message against its sender's pattern
    "model.input",      // `ferry model beff --profile`: the results file it reads passed
};

#ifdef FERRY_MUTATION
// True when FERRY_FORCE_PASS names `check`; aborts on a name that is not in check_names.
bool check_forced_to_pass(std::string_view check);
#else
constexpr bool check_forced_to_pass(std::string_view) { return false; }
#endif

// The test hook that shows each workload's check failing on bad data (docs/reliability.md):
// FERRY_FAULT_CORRUPT_OUTPUT=WHAT changes one word of one sample's output after the device
// work and before the check; each workload's config says what WHAT names (a row of its table).
constexpr const char* corrupt_output_variable = "FERRY_FAULT_CORRUPT_OUTPUT";

// What the check `name` reports of data it found `intact` (or not).
inline bool checked(std::string_view name, bool intact) { return intact || check_forced_to_pass(name); }

// The same for a check that counts what arrived wrong: the count it reports.
inline std::uint64_t wrong_reported(std::string_view name, std::uint64_t wrong) {
  return check_forced_to_pass(name) ? 0 : wrong;
}

}  // namespace ferry
