#pragma once
// What one measurement asks of a transport: who sends to whom in each
// exchange, how large a message is, and where in a participant's memory each
// exchange's message lives. FERRY_HD, so the p2p-sm kernels and the checks
// that run on the device read the same plan as the host.
#include <cstdint>

#include "backend/hd.hpp"

namespace ferry::transport {

enum class Pattern {
  ring,             // ping-ping: every participant sends to its right and receives from its left, all at once
  ping_pong,        // participants 0 and 1 take turns: exchange i goes from i % 2 to the other
  one_way,          // participant 0 sends to participant 1 in every exchange
  fully_connected,  // every participant sends to every other and receives from every other, all at once
};

// Routes one participant takes in each exchange: one, except fully-connected's n - 1.
FERRY_HD inline int fan_of(Pattern pattern, int participants) {
  return pattern == Pattern::fully_connected ? participants - 1 : 1;
}

// One participant's part on one route of one exchange; -1 where it has none.
struct Route {
  int send_to = -1;
  int receive_from = -1;
};

// Route k of fully-connected is the ring shifted by k + 1: every pair of
// participants meets on exactly one route in each direction.
FERRY_HD inline Route route_of(Pattern pattern, int participants, int participant, std::int64_t exchange, int k = 0) {
  if (pattern == Pattern::ring || pattern == Pattern::fully_connected) {
    const int shift = k + 1;
    return {(participant + shift) % participants, (participant + participants - shift) % participants};
  }
  if (participant > 1) return {};
  if (pattern == Pattern::one_way) return participant == 0 ? Route{1, -1} : Route{-1, 0};
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

  bool operator==(const SlotPlan&) const = default;
};

// Messages start on this boundary, so kernels move them 16 bytes at a time.
constexpr std::uint64_t slot_alignment = 256;

FERRY_HD inline std::uint64_t slot_pitch(std::uint64_t bytes) {
  return (bytes + slot_alignment - 1) / slot_alignment * slot_alignment;
}

// A slot holds one message per route: route k's at k x slot_pitch(bytes).
struct ExchangePlan {
  Pattern pattern = Pattern::ring;
  int participants = 0;
  std::uint64_t bytes = 0;  // L, one message
  std::uint64_t pitch = 0;  // from one slot to the next: fan() x slot_pitch(bytes)
  SlotPlan slots;

  FERRY_HD std::int64_t exchanges() const { return slots.exchanges; }
  FERRY_HD int fan() const { return fan_of(pattern, participants); }
  FERRY_HD std::uint64_t message_pitch() const { return slot_pitch(bytes); }
  FERRY_HD std::uint64_t offset(std::int64_t exchange, int k = 0) const {
    return static_cast<std::uint64_t>(slots.slot(exchange)) * pitch + static_cast<std::uint64_t>(k) * message_pitch();
  }
  FERRY_HD Route route(int participant, std::int64_t exchange, int k = 0) const {
    return route_of(pattern, participants, participant, exchange, k);
  }

  // The same exchanges between the same slots: what a graph captured for one plan replays for the other.
  bool operator==(const ExchangePlan&) const = default;
};

// A plan whose slots fit areas of `area_bytes`: every exchange keeps its own slot while they fit.
inline ExchangePlan make_plan(Pattern pattern, int participants, std::uint64_t bytes, std::int64_t exchanges,
                              std::uint64_t area_bytes) {
  const std::uint64_t pitch = static_cast<std::uint64_t>(fan_of(pattern, participants)) * slot_pitch(bytes);
  return {pattern, participants, bytes, pitch, {exchanges, static_cast<std::int64_t>(area_bytes / pitch)}};
}

}  // namespace ferry::transport
