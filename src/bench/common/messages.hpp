#pragma once
// What every message of beff and topo carries and how a receiver checks it. A
// message's bytes are a pattern derived from its sender, its route, its
// exchange, its size and the round (topo fills its areas anew each round), so
// a message from the wrong sender or route, a stale exchange or round, or
// another size cannot pass. Slots that exchanges take turns in (SlotPlan)
// carry a pattern of their own slot instead. The bytes of a slot past the
// message must still be poison: a transport that writes more than it was
// asked fails too.
#include <cstdint>

#include "backend/hd.hpp"
#include "bench/common/pattern.hpp"
#include "transport/exchange_plan.hpp"

namespace ferry {
class Stream;
}

namespace ferry {

using transport::ExchangePlan;

FERRY_HD inline std::uint64_t message_seed(int sender, std::int64_t slot, int route, const ExchangePlan& plan,
                                           std::uint64_t round = 0) {
  const std::int64_t exchange = plan.slots.kept_exchange(slot);
  const std::uint64_t which = exchange >= 0 ? static_cast<std::uint64_t>(exchange)
                                            : (1ull << 40) | static_cast<std::uint64_t>(slot);  // a shared slot
  const std::uint64_t who = (static_cast<std::uint64_t>(sender) << 48) ^ (static_cast<std::uint64_t>(route) << 36);
  return pattern_word(which, pattern_word(round, who ^ plan.bytes));
}

// The participant whose message a receiver's slot must hold on a route after
// a run, or -1 when nothing was sent into it (it must still be poison).
FERRY_HD inline int expected_sender(const ExchangePlan& plan, int receiver, std::int64_t slot, int route = 0) {
  const std::int64_t exchange = plan.slots.kept_exchange(slot);
  // A shared slot is only ever written where every exchange takes the same routes (ring, fully-connected).
  return plan.route(receiver, exchange >= 0 ? exchange : 0, route).receive_from;
}

FERRY_HD inline std::uint64_t slot_words(const ExchangePlan& plan) { return plan.pitch / 8; }
FERRY_HD inline std::uint64_t message_words(const ExchangePlan& plan) { return plan.message_pitch() / 8; }
FERRY_HD inline std::int64_t area_words(const ExchangePlan& plan) {
  return static_cast<std::int64_t>(plan.slots.slots_used() * slot_words(plan));
}

// Where word w of an area lies: its slot, the route whose message holds it, and its word in that message.
struct WordPlace {
  std::int64_t slot;
  int route;
  std::uint64_t word;
};

FERRY_HD inline WordPlace place_of(const ExchangePlan& plan, std::int64_t w) {
  const std::uint64_t in_slot = static_cast<std::uint64_t>(w) % slot_words(plan);
  return {w / static_cast<std::int64_t>(slot_words(plan)), static_cast<int>(in_slot / message_words(plan)),
          in_slot % message_words(plan)};
}

// Writes word w of the sender's send area: the message bytes of every slot the plan uses.
struct FillMessages {
  unsigned char* area;
  ExchangePlan plan;
  int sender;
  std::uint64_t round;

  FERRY_HD void operator()(std::int64_t w) const {
    const WordPlace at_word = place_of(plan, w);
    const std::uint64_t word = at_word.word;
    const std::uint64_t first = word * 8;
    if (first >= plan.bytes) return;
    const std::uint64_t seed = message_seed(sender, at_word.slot, at_word.route, plan, round);
    unsigned char* at = area + static_cast<std::uint64_t>(w) * 8;
    if (first + 8 <= plan.bytes) {
      *reinterpret_cast<std::uint64_t*>(at) = pattern_word(word, seed);
    } else {
      for (std::uint64_t b = first; b < plan.bytes; ++b) at[b - first] = pattern_byte(b, seed);
    }
  }
};

// Adds one to *mismatches for every word of the receiver's area that differs
// from what the plan says it must hold.
struct CountWrongWords {
  const unsigned char* area;
  ExchangePlan plan;
  int receiver;
  std::uint64_t round;
  unsigned long long* mismatches;

  FERRY_HD void operator()(std::int64_t w) const {
    const WordPlace at_word = place_of(plan, w);
    const std::uint64_t word = at_word.word;
    const std::uint64_t first = word * 8;
    const int sender = expected_sender(plan, receiver, at_word.slot, at_word.route);
    const std::uint64_t got = *reinterpret_cast<const std::uint64_t*>(area + static_cast<std::uint64_t>(w) * 8);
    std::uint64_t want = 0;
    const std::uint64_t message_end = sender < 0 ? 0 : plan.bytes;
    const std::uint64_t seed = sender < 0 ? 0 : message_seed(sender, at_word.slot, at_word.route, plan, round);
    if (first + 8 <= message_end) {
      want = pattern_word(word, seed);
    } else {
      for (std::uint64_t b = 0; b < 8; ++b) {
        const unsigned char byte =
            first + b < message_end ? pattern_byte(first + b, seed) : static_cast<unsigned char>(poison_value);
        want |= static_cast<std::uint64_t>(byte) << (8 * b);
      }
    }
    if (got != want) add_relaxed(mismatches, 1);
  }

  static constexpr unsigned poison_value = 0xA5;  // verify.hpp's poison_byte (messages.cpp checks they agree)
};

// messages.cpp, compiled as CUDA when the CUDA backend is built.
void enqueue_fill(Stream& stream, unsigned char* area, const ExchangePlan& plan, int sender, std::uint64_t round);
void enqueue_count_wrong(Stream& stream, const unsigned char* area, const ExchangePlan& plan, int receiver,
                         std::uint64_t round, unsigned long long* mismatches);

}  // namespace ferry
