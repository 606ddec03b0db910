// A message's check: it fails for every way a transport could get it wrong.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "bench/common/messages.hpp"
#include "bench/common/verify.hpp"

namespace ferry {
namespace {

using transport::ExchangePlan;
using transport::Pattern;
using transport::slot_pitch;

struct Areas {
  ExchangePlan plan;
  std::vector<std::uint64_t> left_send, receive;  // participant 1 receives from participant 0 in a ring of 2

  explicit Areas(std::uint64_t bytes, std::int64_t exchanges = 6, std::int64_t slots = 8)
      : plan{Pattern::ring, 2, bytes, slot_pitch(bytes), {exchanges, slots}},
        left_send(area_words(plan)),
        receive(area_words(plan)) {
    const FillMessages fill{reinterpret_cast<unsigned char*>(left_send.data()), plan, 0, 0};
    for (std::int64_t w = 0; w < area_words(plan); ++w) fill(w);
    std::memset(receive.data(), poison_byte, receive.size() * 8);
  }
  // What a correct transport does: every exchange's message, in its slot.
  void deliver() {
    for (std::int64_t i = 0; i < plan.exchanges(); ++i)
      std::memcpy(bytes(receive) + plan.offset(i), bytes(left_send) + plan.offset(i), plan.bytes);
  }
  static unsigned char* bytes(std::vector<std::uint64_t>& v) { return reinterpret_cast<unsigned char*>(v.data()); }
  unsigned long long wrong(int receiver = 1) const {
    unsigned long long count = 0;
    const CountWrongWords check{reinterpret_cast<const unsigned char*>(receive.data()), plan, receiver, 0, &count};
    for (std::int64_t w = 0; w < area_words(plan); ++w) check(w);
    return count;
  }
};

TEST(Messages, EveryDeliveredMessagePasses) {
  for (std::uint64_t bytes : {1u, 3u, 8u, 13u, 256u, 4096u, 5000u}) {
    Areas a(bytes);
    a.deliver();
    EXPECT_EQ(a.wrong(), 0u) << bytes;
  }
}

TEST(Messages, AMissingMessageFails) {
  Areas a(64);
  a.deliver();
  std::memset(Areas::bytes(a.receive) + a.plan.offset(3), poison_byte, 64);
  EXPECT_GT(a.wrong(), 0u);
}

TEST(Messages, AStaleExchangeFails) {
  Areas a(64);
  a.deliver();
  // Exchange 2's message where exchange 3's belongs.
  std::memcpy(Areas::bytes(a.receive) + a.plan.offset(3), Areas::bytes(a.left_send) + a.plan.offset(2), 64);
  EXPECT_GT(a.wrong(), 0u);
}

TEST(Messages, AMessageFromTheWrongSenderFails) {
  Areas a(64);
  a.deliver();
  EXPECT_GT(a.wrong(0), 0u);  // participant 0 receives from participant 1, not from itself
}

TEST(Messages, WritingPastTheMessageFails) {
  Areas a(13);
  a.deliver();
  Areas::bytes(a.receive)[a.plan.offset(1) + 13] = 0;  // one byte past a 13-byte message
  EXPECT_EQ(a.wrong(), 1u);
}

TEST(Messages, OneCorruptedByteFailsOneWord) {
  Areas a(4096);
  a.deliver();
  Areas::bytes(a.receive)[a.plan.offset(4) + 1000] ^= 0x10;
  EXPECT_EQ(a.wrong(), 1u);
}

TEST(Messages, SharedSlotsHoldTheirOwnPatternAndKeptOnesTheirExchanges) {
  Areas a(64, 100, 5);  // more exchanges than slots
  a.deliver();
  EXPECT_EQ(a.wrong(), 0u);
  // The middle exchange's slot with a shared slot's message: caught.
  std::memcpy(Areas::bytes(a.receive) + a.plan.pitch * 1, Areas::bytes(a.left_send) + a.plan.pitch * 3, 64);
  EXPECT_GT(a.wrong(), 0u);
}

TEST(Messages, SeedsDifferBySenderExchangeRouteRoundAndSize) {
  const ExchangePlan small{Pattern::ring, 2, 64, 256, {8, 8}};
  ExchangePlan larger = small;
  larger.bytes = 128;
  EXPECT_NE(message_seed(0, 1, 0, small), message_seed(1, 1, 0, small));
  EXPECT_NE(message_seed(0, 1, 0, small), message_seed(0, 2, 0, small));
  EXPECT_NE(message_seed(0, 1, 0, small), message_seed(0, 1, 0, larger));
  EXPECT_NE(message_seed(0, 1, 0, small), message_seed(0, 1, 1, small));
  EXPECT_NE(message_seed(0, 1, 0, small, 3), message_seed(0, 1, 0, small, 4));
}

// Fully-connected: a slot holds a message per route, each from its own sender, all checked.
struct FullyConnected {
  static constexpr int n = 4;
  ExchangePlan plan = transport::make_plan(Pattern::fully_connected, n, 100, 1, 1 << 16);
  std::vector<std::vector<std::uint64_t>> send, receive;
  std::uint64_t round = 7;

  FullyConnected() : send(n, std::vector<std::uint64_t>(area_words(plan))), receive(send) {
    for (int p = 0; p < n; ++p) {
      const FillMessages fill{reinterpret_cast<unsigned char*>(send[p].data()), plan, p, round};
      for (std::int64_t w = 0; w < area_words(plan); ++w) fill(w);
      std::memset(receive[p].data(), poison_byte, receive[p].size() * 8);
    }
  }
  void deliver() {
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < plan.fan(); ++k) {
        const int to = plan.route(p, 0, k).send_to;
        std::memcpy(Areas::bytes(receive[to]) + plan.offset(0, k), Areas::bytes(send[p]) + plan.offset(0, k),
                    plan.bytes);
      }
  }
  unsigned long long wrong(int p, std::uint64_t checked_round) const {
    unsigned long long count = 0;
    const CountWrongWords check{reinterpret_cast<const unsigned char*>(receive[p].data()), plan, p, checked_round,
                                &count};
    for (std::int64_t w = 0; w < area_words(plan); ++w) check(w);
    return count;
  }
};

TEST(Messages, FullyConnectedMessagesPassOnEveryRoute) {
  FullyConnected f;
  EXPECT_EQ(f.plan.fan(), 3);
  f.deliver();
  for (int p = 0; p < FullyConnected::n; ++p) EXPECT_EQ(f.wrong(p, f.round), 0u) << p;
}

TEST(Messages, AMessageOnTheWrongRouteOrFromAnotherRoundFails) {
  FullyConnected f;
  f.deliver();
  EXPECT_GT(f.wrong(0, f.round + 1), 0u);  // last round's check of this round's data
  // Participant 0's route-0 message (from 3) where its route-1 message (from 2) belongs.
  std::memcpy(Areas::bytes(f.receive[0]) + f.plan.offset(0, 1), Areas::bytes(f.receive[0]) + f.plan.offset(0, 0), 100);
  EXPECT_GT(f.wrong(0, f.round), 0u);
  EXPECT_EQ(f.wrong(1, f.round), 0u);
}

}  // namespace
}  // namespace ferry
