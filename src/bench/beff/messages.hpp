#pragma once
// What every b_eff message carries and how a receiver checks it. A message's
// bytes are a pattern derived from its sender, its exchange and its size, so a
// message from the wrong sender, a stale exchange or another size cannot
// pass. Slots that exchanges take turns in (SlotPlan) carry a pattern of
// their own slot instead. The bytes of a slot past the message must still be
// poison: a transport that writes more than it was asked fails too.
#include <cstdint>

#include "backend/hd.hpp"
#include "bench/common/pattern.hpp"
#include "transport/exchange_plan.hpp"

namespace ferry {
class Stream;
}

namespace ferry::beff {

using transport::ExchangePlan;

FERRY_HD inline std::uint64_t message_seed(int sender, std::int64_t slot, const ExchangePlan& plan) {
  const std::int64_t exchange = plan.slots.kept_exchange(slot);
  const std::uint64_t which = exchange >= 0 ? static_cast<std::uint64_t>(exchange)
                                            : (1ull << 40) | static_cast<std::uint64_t>(slot);  // a shared slot
  return pattern_word(which, (static_cast<std::uint64_t>(sender) << 48) ^ plan.bytes);
}

// The participant whose message a receiver's slot must hold after a run, or -1
// when nothing was sent into it (it must still be poison).
FERRY_HD inline int expected_sender(const ExchangePlan& plan, int receiver, std::int64_t slot) {
  const std::int64_t exchange = plan.slots.kept_exchange(slot);
  // A shared slot is only ever written in a ring, where every exchange comes from the left.
  return plan.route(receiver, exchange >= 0 ? exchange : 0).receive_from;
}

FERRY_HD inline std::uint64_t slot_words(const ExchangePlan& plan) { return plan.pitch / 8; }
FERRY_HD inline std::int64_t area_words(const ExchangePlan& plan) {
  return static_cast<std::int64_t>(plan.slots.slots_used() * slot_words(plan));
}

// Writes word w of the sender's send area: the message bytes of every slot the plan uses.
struct FillMessages {
  unsigned char* area;
  ExchangePlan plan;
  int sender;

  FERRY_HD void operator()(std::int64_t w) const {
    const std::int64_t slot = w / static_cast<std::int64_t>(slot_words(plan));
    const std::uint64_t word = static_cast<std::uint64_t>(w) % slot_words(plan);
    const std::uint64_t first = word * 8;
    if (first >= plan.bytes) return;
    const std::uint64_t seed = message_seed(sender, slot, plan);
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
  unsigned long long* mismatches;

  FERRY_HD void operator()(std::int64_t w) const {
    const std::int64_t slot = w / static_cast<std::int64_t>(slot_words(plan));
    const std::uint64_t word = static_cast<std::uint64_t>(w) % slot_words(plan);
    const std::uint64_t first = word * 8;
    const int sender = expected_sender(plan, receiver, slot);
    const std::uint64_t got = *reinterpret_cast<const std::uint64_t*>(area + static_cast<std::uint64_t>(w) * 8);
    std::uint64_t want = 0;
    const std::uint64_t message_end = sender < 0 ? 0 : plan.bytes;
    if (first + 8 <= message_end) {
      want = pattern_word(word, message_seed(sender, slot, plan));
    } else {
      for (std::uint64_t b = 0; b < 8; ++b) {
        const unsigned char byte = first + b < message_end ? pattern_byte(first + b, message_seed(sender, slot, plan))
                                                          : static_cast<unsigned char>(poison_value);
        want |= static_cast<std::uint64_t>(byte) << (8 * b);
      }
    }
    if (got != want) add_relaxed(mismatches, 1);
  }

  static constexpr unsigned poison_value = 0xA5;  // verify.hpp's poison_byte (messages.cpp checks they agree)
};

// messages.cpp, compiled as CUDA when the CUDA backend is built.
void enqueue_fill(Stream& stream, unsigned char* area, const ExchangePlan& plan, int sender);
void enqueue_count_wrong(Stream& stream, const unsigned char* area, const ExchangePlan& plan, int receiver,
                         unsigned long long* mismatches);

}  // namespace ferry::beff
