#pragma once
// p2p-sm's kernel: one launch per device runs every exchange of a plan, its
// teams storing each message straight into the receiving device's memory
// (over NVLink or PCIe) and polling their own memory for what arrives. Team t
// of every device handles slice t of every message, so a team only ever
// waits for team t of its peers: no grid-wide barrier, and any residency works.
//
// Two protocols, as NCCL has:
// - LL, for small messages: a 16-byte line carries 8 data bytes in two words,
//   each with the exchange's tag beside its 4 bytes, so data and flag arrive
//   in one store and the receiver polls the data itself. It lands in an inbox
//   of sm_ll_depth slots; the receiver copies it out and returns a credit, so
//   a sender never overwrites a slot not yet read. Half the bytes on the wire are tags.
// - direct, for large messages: the sender's team stores its slice into the
//   receiver's own receive slot 16 bytes at a time, then raises a flag with a
//   release at system scope. Every byte on the wire is data; the release costs
//   a round trip per message.
// Tags (first_tag + exchange) only grow from launch to launch, so flags and
// inboxes are never reset. A thread that waits too long records the failure
// and waits no more, so a broken peer ends the kernel instead of hanging it,
// and no thread leaves a barrier the others wait at. One FERRY_HD body: the
// emulator runs the same protocol.
#include <cstdint>

#include "backend/hd.hpp"
#include "transport/exchange_plan.hpp"

namespace ferry {
class Stream;
}

namespace ferry::transport {

struct alignas(16) Line {
  std::uint64_t half[2];
};

// Words from one team's flag to the next: a 128-byte line each, so teams never share one.
constexpr std::uint64_t sm_flag_stride = 16;
// LL inbox slots: a sender may run this many messages ahead of its receiver.
constexpr std::uint64_t sm_ll_depth = 4;
constexpr std::uint64_t no_sm_failure = 0;

// What a team that gave up was waiting for, in the failure word's low bits.
enum class SmWait : std::uint64_t { credit = 1, message = 2 };

FERRY_HD inline std::uint64_t sm_failure_word(std::int64_t exchange, SmWait what) {
  return (static_cast<std::uint64_t>(exchange + 1) << 2) | static_cast<std::uint64_t>(what);
}

struct PeerStoreExchange {
  ExchangePlan plan;
  int me = 0;                   // this device's participant
  int route = 0;                // which of the plan's routes this launch moves (one launch per route)
  std::uint64_t first_tag = 1;  // exchange i's tag is first_tag + i
  bool ll = true;
  std::uint64_t ll_slot_words = 0;       // words in one LL inbox slot (two per line)
  const std::byte* send = nullptr;       // this device's send area
  std::byte* receive = nullptr;          // this device's receive area
  std::byte* to_receive = nullptr;       // direct: the receive area of the participant this one sends to
  std::uint64_t* to_arrived = nullptr;   // direct: its arrival flags, one per team
  std::uint64_t* arrived = nullptr;      // direct: this device's
  std::uint64_t* to_inbox = nullptr;     // LL: the inbox of the participant this one sends to
  std::uint64_t* inbox = nullptr;        // LL: this device's
  std::uint64_t* from_credit = nullptr;  // LL: credits in the memory of the participant this one receives from
  std::uint64_t* credit = nullptr;       // LL: this device's, written by the participant it sends to
  std::uint64_t* failure = nullptr;      // mapped host memory: sm_failure_word of a thread that gave up
  std::uint64_t timeout_ns = 0;

  static constexpr int polls_per_clock_read = 64;
  static constexpr int lines_in_flight = 4;
  static constexpr std::uint64_t tag_mask = 0xFFFFFFFF00000000ull;

  // What one thread carries from exchange to exchange.
  struct Thread {
    // The team's share of every message's lines: the same in every exchange, so divided out once a launch
    // (a 64-bit division is a software routine on a GPU, three an exchange before).
    Slice slice;
    bool failed = false;            // it gave up once: no wait of it blocks again
    std::uint64_t credit_seen = 0;  // the last credit it read, so most sends read none
    std::uint64_t credit_due = 0;   // the tag of the LL message read but not yet credited (0: none)
    // The first lines of its next LL message, loaded while it waited for the one before.
    std::int64_t staged_for = -1;
    std::uint64_t staged[lines_in_flight];
  };

  FERRY_HD std::uint64_t ll_lines() const { return (plan.bytes + 7) / 8; }
  FERRY_HD std::uint64_t direct_lines() const { return (plan.bytes + sizeof(Line) - 1) / sizeof(Line); }
  FERRY_HD static std::uint64_t tag_bits(std::uint64_t tag) { return (tag & 0xFFFFFFFFull) << 32; }

  FERRY_HD bool out_of_time(std::uint64_t& since) const {
    const std::uint64_t now = timeout_clock_ns();
    if (since == 0) since = now;
    return now - since > timeout_ns;
  }

  FERRY_HD void give_up(Thread& t, std::int64_t exchange, SmWait what) const {
    if (!t.failed) store_relaxed_system(failure, sm_failure_word(exchange, what));
    t.failed = true;
  }

  // Polls `flag` until it reaches `at_least` (the value read is left in `seen`).
  FERRY_HD void wait_for(const std::uint64_t* flag, std::uint64_t at_least, std::uint64_t& seen, Thread& t,
                         std::int64_t exchange, SmWait what) const {
    std::uint64_t since = 0;
    for (int polls = 1; !t.failed && seen < at_least; ++polls) {
      seen = load_relaxed_system(flag);
      if (seen >= at_least) return;
      if (polls % polls_per_clock_read == 0 && out_of_time(since)) give_up(t, exchange, what);
      spin_pause();
    }
  }

  template <class Team>
  FERRY_HD void ll_send(Team& team, std::int64_t i, std::uint64_t tag, Thread& t) const {
    // The slot this message takes held message i - depth: its reader must have taken it. Each
    // thread checks for itself (no barrier); messages of earlier launches were all taken before
    // those launches ended, whatever teams they had.
    if (i >= static_cast<std::int64_t>(sm_ll_depth))
      wait_for(credit + team.index() * sm_flag_stride, tag - sm_ll_depth, t.credit_seen, t, i, SmWait::credit);
    const Slice slice = t.slice;
    const auto* data = reinterpret_cast<const std::uint64_t*>(send + plan.offset(i, route));
    std::uint64_t* out = to_inbox + (static_cast<std::uint64_t>(i) % sm_ll_depth) * ll_slot_words;
    const std::uint64_t mark = tag_bits(tag);
    const std::uint64_t step = static_cast<std::uint64_t>(team.size());
    int k = 0;
    for (std::uint64_t l = slice.lo + team.rank(); l < slice.hi; l += step, ++k) {
      // Past a message's end a line reads slot padding, which the receiver never writes out.
      const std::uint64_t d = t.staged_for == i && k < lines_in_flight ? t.staged[k] : data[l];
      store_pair_volatile(out + 2 * l, mark | (d & 0xFFFFFFFFull), mark | (d >> 32));
    }
  }

  // While it waits for exchange i's message, a thread loads what its send of
  // exchange i + 1 needs (its first lines, the credit), so that the send,
  // once the message is in, goes out without a round trip to memory first.
  template <class Team>
  FERRY_HD void stage_next_send(Team& team, std::int64_t i, Thread& t) const {
    const std::int64_t next = i + 1;
    if (next >= plan.exchanges() || plan.route(me, next, route).send_to < 0) return;
    if (next >= static_cast<std::int64_t>(sm_ll_depth))
      t.credit_seen = load_relaxed_system(credit + team.index() * sm_flag_stride);
    const Slice slice = t.slice;
    const auto* data = reinterpret_cast<const std::uint64_t*>(send + plan.offset(next, route));
    const std::uint64_t step = static_cast<std::uint64_t>(team.size());
    FERRY_UNROLL
    for (int k = 0; k < lines_in_flight; ++k)
      if (slice.lo + team.rank() + k * step < slice.hi) t.staged[k] = data[slice.lo + team.rank() + k * step];
    t.staged_for = next;
  }

  template <class Team>
  FERRY_HD void ll_receive(Team& team, std::int64_t i, std::uint64_t tag, Thread& t) const {
    stage_next_send(team, i, t);
    const Slice slice = t.slice;
    const std::uint64_t* in = inbox + (static_cast<std::uint64_t>(i) % sm_ll_depth) * ll_slot_words;
    std::byte* out = receive + plan.offset(i, route);
    const std::uint64_t mark = tag_bits(tag);
    const std::uint64_t step = static_cast<std::uint64_t>(team.size());
    for (std::uint64_t base = slice.lo + team.rank(); base < slice.hi; base += lines_in_flight * step) {
      // Every line of the batch is loaded at once, then only the late ones again:
      // a poll costs one round trip however many lines are late.
      std::uint64_t w[lines_in_flight][2];
      FERRY_UNROLL
      for (int k = 0; k < lines_in_flight; ++k)
        if (base + k * step < slice.hi) load_pair_volatile(in + 2 * (base + k * step), w[k][0], w[k][1]);
      std::uint64_t since = 0;
      for (int polls = 1; !t.failed; ++polls) {
        bool complete = true;
        FERRY_UNROLL
        for (int k = 0; k < lines_in_flight; ++k)
          if (base + k * step < slice.hi)
            complete = complete && (w[k][0] & tag_mask) == mark && (w[k][1] & tag_mask) == mark;
        if (complete) break;
        if (polls % polls_per_clock_read == 0 && out_of_time(since)) give_up(t, i, SmWait::message);
        spin_pause();
        FERRY_UNROLL
        for (int k = 0; k < lines_in_flight; ++k)
          if (base + k * step < slice.hi && ((w[k][0] & tag_mask) != mark || (w[k][1] & tag_mask) != mark))
            load_pair_volatile(in + 2 * (base + k * step), w[k][0], w[k][1]);
      }
      FERRY_UNROLL
      for (int k = 0; k < lines_in_flight; ++k) {
        const std::uint64_t l = base + k * step;
        if (l >= slice.hi) continue;
        const std::uint64_t d = (w[k][0] & 0xFFFFFFFFull) | (w[k][1] << 32);
        if (8 * l + 8 <= plan.bytes) {
          reinterpret_cast<std::uint64_t*>(out)[l] = d;
        } else {  // the message's last, partial line: only its own bytes
          for (std::uint64_t b = 8 * l; b < plan.bytes; ++b) out[b] = static_cast<std::byte>(d >> (8 * (b - 8 * l)));
        }
      }
    }
    t.credit_due = tag;
  }

  // Every thread has used what it read, so the slot may be written again. Done once this device's next
  // message is out, not before it: the barrier and the store into the sender's memory are then off the
  // path from one exchange to the next. Credits run at most one exchange late, and the inbox holds
  // sm_ll_depth messages, so no sender waits on a credit that waits on its own.
  template <class Team>
  FERRY_HD void return_credit(Team& team, Thread& t) const {
    if (t.credit_due == 0) return;
    team.sync();
    if (team.rank() == 0) store_relaxed_system(from_credit + team.index() * sm_flag_stride, t.credit_due);
    t.credit_due = 0;
  }

  template <class Team>
  FERRY_HD void direct_send(Team& team, std::int64_t i, std::uint64_t tag, const Thread& t) const {
    const std::uint64_t whole = plan.bytes / sizeof(Line);
    const Slice slice = t.slice;
    const auto* from = reinterpret_cast<const Line*>(send + plan.offset(i, route));
    auto* to = reinterpret_cast<Line*>(to_receive + plan.offset(i, route));
    const std::uint64_t step = static_cast<std::uint64_t>(team.size());
    // Loads first, then stores: several reads in flight per thread.
    for (std::uint64_t base = slice.lo + team.rank(); base < slice.hi; base += lines_in_flight * step) {
      Line held[lines_in_flight];
      FERRY_UNROLL
      for (int k = 0; k < lines_in_flight; ++k)
        if (base + k * step < slice.hi && base + k * step < whole) held[k] = from[base + k * step];
      FERRY_UNROLL
      for (int k = 0; k < lines_in_flight; ++k) {
        const std::uint64_t l = base + k * step;
        if (l >= slice.hi) continue;
        if (l < whole) {
          to[l] = held[k];
        } else {  // the message's last, partial line: only its own bytes
          const auto* f = reinterpret_cast<const std::byte*>(from + l);
          auto* d = reinterpret_cast<std::byte*>(to + l);
          for (std::uint64_t b = 0; b < plan.bytes - l * sizeof(Line); ++b) d[b] = f[b];
        }
      }
    }
    team.sync();
    // The release orders the whole team's stores (seen by rank 0 through the barrier) before the flag.
    if (team.rank() == 0) store_release_system(to_arrived + team.index() * sm_flag_stride, tag);
  }

  template <class Team>
  FERRY_HD void direct_receive(Team& team, std::int64_t i, std::uint64_t tag, Thread& t) const {
    // Every thread polls the flag itself: nothing here reads the data, so no barrier is needed.
    std::uint64_t seen = 0;
    wait_for(arrived + team.index() * sm_flag_stride, tag, seen, t, i, SmWait::message);
  }

  template <class Team>
  FERRY_HD void operator()(Team& team) const {
    Thread t;
    t.slice = team_slice(ll ? ll_lines() : direct_lines(), team.index(), team.count());
    for (std::int64_t i = 0; i < plan.exchanges(); ++i) {
      const Route r = plan.route(me, i, route);
      const std::uint64_t tag = first_tag + static_cast<std::uint64_t>(i);
      if (r.send_to >= 0) {
        if (ll) ll_send(team, i, tag, t);
        else direct_send(team, i, tag, t);
      }
      return_credit(team, t);  // the last exchange's, now that this one's message is out
      if (r.receive_from >= 0) {
        if (ll) ll_receive(team, i, tag, t);
        else direct_receive(team, i, tag, t);
      }
    }
    return_credit(team, t);
  }
};

// p2p_sm_launch.cpp, compiled as CUDA when the CUDA backend is built.
void launch_peer_store_exchange(Stream& stream, const PeerStoreExchange& kernel, int teams);
int peer_store_resident_teams(Stream& stream);

}  // namespace ferry::transport
