#pragma once
// The test hook beff and topo share (FERRY_FAULT_CORRUPT_MESSAGE, docs/reliability.md):
// one byte of one message arrives wrong, so that a test sees the check of any
// repetition or round fail, the last as much as the first.
#include <cstdint>
#include <string_view>

namespace ferry {

struct MessageCorruption {
  std::uint64_t bytes = 0;  // the size whose message arrives wrong
  int index = 0;            // the repetition (beff) or round (topo) it arrives wrong in, from 0
};

// "SIZE" (the first repetition or round) or "SIZE@N", N counted from 1. Throws
// UsageError, naming `variable`, when malformed.
MessageCorruption parse_message_corruption(std::string_view text, const char* variable);

}  // namespace ferry
