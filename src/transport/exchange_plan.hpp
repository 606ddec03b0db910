#pragma once
// What one measurement asks of a transport: who sends to whom in each
// exchange, how large a message is, and where in a participant's memory each
// exchange's message lives. FERRY_HD, so the p2p-sm kernels and the checks
// that run on the device read the same plan as the host.
#include <cstdint>

#include "backend/hd.hpp"

namespace ferry::transport {

enum class Pattern {
  ring,       // ping-ping: every participant sends to its right and receives from its left, all at once
  ping_pong,  // participants 0 and 1 take turns: exchange i goes from i % 2 to the other
};

// One participant's part in one exchange; -1 where it has none.
struct Route {
  int send_to = -1;
  int receive_from = -1;
};

FERRY_HD inline Route route_of(Pattern pattern, int participants, int participant, std::int64_t exchange) {
  if (pattern == Pattern::ring)
    return {(participant + 1) % participants, (participant + participants - 1) % participants};
  if (participant > 1) return {};
  const int sender = static_cast<int>(exchange % 2);
  return participant == sender ? Route{1 - sender, -1} : Route{-1, sender};
}

// Where exchange i's message lives, in the sender's send area and the
// receiver's receive area alike. Each exchange has a slot of its own while
// the area holds them all; past that, the first, middle and last exchanges
// keep theirs (they are checked against the exchange that sent them) and the
// others take turns in the rest (checked against the slot's own pattern).
struct SlotPlan {
  std::int64_t exchanges = 0;
  std::int64_t slots = 0;  // >= 4 when slots < exchanges

  FERRY_HD bool every_exchange_kept() const { return exchanges <= slots; }
  FERRY_HD std::int64_t middle() const { return exchanges / 2; }
  FERRY_HD std::int64_t slots_used() const { return every_exchange_kept() ? exchanges : slots; }

  FERRY_HD std::int64_t slot(std::int64_t i) const {
    if (every_exchange_kept()) return i;
    if (i == 0) return 0;
    if (i == middle()) return 1;
    if (i == exchanges - 1) return 2;
    // The others in turn, counted without the kept ones, so that every shared slot is written.
    const std::int64_t turn = i - 1 - (i > middle() ? 1 : 0);
    return 3 + turn % (slots - 3);
  }

  // The exchange whose message a slot keeps to the end, or -1 for a slot that
  // exchanges take turns in.
  FERRY_HD std::int64_t kept_exchange(std::int64_t s) const {
    if (every_exchange_kept()) return s;
    if (s == 0) return 0;
    if (s == 1) return middle();
    if (s == 2) return exchanges - 1;
    return -1;
  }
};

// Messages start on this boundary, so kernels move them 16 bytes at a time.
constexpr std::uint64_t slot_alignment = 256;

FERRY_HD inline std::uint64_t slot_pitch(std::uint64_t bytes) {
  return (bytes + slot_alignment - 1) / slot_alignment * slot_alignment;
}

struct ExchangePlan {
  Pattern pattern = Pattern::ring;
  int participants = 0;
  std::uint64_t bytes = 0;  // L, one message
  std::uint64_t pitch = 0;  // from one slot to the next
  SlotPlan slots;

  FERRY_HD std::int64_t exchanges() const { return slots.exchanges; }
  FERRY_HD std::uint64_t offset(std::int64_t exchange) const {
    return static_cast<std::uint64_t>(slots.slot(exchange)) * pitch;
  }
  FERRY_HD Route route(int participant, std::int64_t exchange) const {
    return route_of(pattern, participants, participant, exchange);
  }
};

}  // namespace ferry::transport
