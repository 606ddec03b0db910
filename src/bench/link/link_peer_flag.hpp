#pragma once
// A flag ping-pong between kernels on two devices: the kernel on a stores a
// tag into b's memory, where b's kernel polls for it and answers with the tag
// it saw into a's memory, where a's kernel polls. Half a round trip is what a
// message whose words are their own flags (p2p-sm's LL) pays per exchange
// besides its bytes. Both kernels are one FERRY_HD body for the GPU and the emulator.
#include <cstdint>

#include "backend/hd.hpp"
#include "bench/link/link_kernels.hpp"

namespace ferry {
class Stream;
}

namespace ferry::link {

// Polls `flag` until it holds something other than `last`; kernel_timed_out
// after `timeout_ns`. The clock is read every 64 polls, as p2p-sm's polls read
// it, so that a timed round trip carries no more clock reads than an exchange.
FERRY_HD inline std::uint64_t await_change(const std::uint64_t* flag, std::uint64_t last, std::uint64_t timeout_ns) {
  std::uint64_t since = 0;
  for (int polls = 1;; ++polls) {
    const std::uint64_t seen = load_relaxed_system(flag);
    if (seen != last) return seen;
    if (polls % 64 == 0) {
      const std::uint64_t now = timeout_clock_ns();
      if (since == 0) since = now;
      if (now - since > timeout_ns) return kernel_timed_out;
    }
    spin_pause();
  }
}

// Device a's side: round_trips + 1 tags, from first_tag up, each stored into
// b's flag, then b's answer awaited in a's own flag and kept for the host to
// check. The first round trip (which also waits for b's kernel to start) is
// not timed; the kernel times the others itself on the device's clock.
struct PeerFlagPing {
  std::uint64_t* peer_flag;   // in b's memory; it holds first_tag - 1 before the launch
  const std::uint64_t* flag;  // in a's memory; the same
  std::uint64_t first_tag;
  std::uint64_t round_trips;
  std::uint64_t* answers;      // a's memory: round_trips + 1 words
  std::uint64_t* nanoseconds;  // a's memory: the timed round trips' time, or kernel_timed_out
  std::uint64_t timeout_ns;

  FERRY_HD void operator()(std::int64_t) const {
    std::uint64_t last = first_tag - 1, start = 0;
    for (std::uint64_t k = 0; k <= round_trips; ++k) {
      if (k == 1) start = timeout_clock_ns();
      store_relaxed_system(peer_flag, first_tag + k);
      last = await_change(flag, last, timeout_ns);
      if (last == kernel_timed_out) {
        *nanoseconds = kernel_timed_out;
        return;
      }
      answers[k] = last;
    }
    *nanoseconds = timeout_clock_ns() - start;
  }
};

// Device b's side: answers each tag that lands in its flag with the tag it saw.
struct PeerFlagAnswer {
  const std::uint64_t* flag;  // in b's memory
  std::uint64_t* peer_flag;   // in a's memory
  std::uint64_t first_tag;
  std::uint64_t round_trips;
  std::uint64_t* gave_up;  // b's memory: kernel_timed_out when a's tag never came
  std::uint64_t timeout_ns;

  FERRY_HD void operator()(std::int64_t) const {
    std::uint64_t last = first_tag - 1;
    for (std::uint64_t k = 0; k <= round_trips; ++k) {
      last = await_change(flag, last, timeout_ns);
      if (last == kernel_timed_out) {
        *gave_up = kernel_timed_out;
        return;
      }
      store_relaxed_system(peer_flag, last);
    }
  }
};

// link_peer_flag_launch.cpp, compiled as CUDA when the CUDA backend is built.
void launch_peer_flag_ping(Stream& stream, const PeerFlagPing& kernel);
void launch_peer_flag_answer(Stream& stream, const PeerFlagAnswer& kernel);

// The answers that do not carry their round trip's tag (answers[k] is
// first_tag + k's), as the check "link.peer_flag" reports them.
std::uint64_t wrong_peer_flag_answers(const std::uint64_t* answers, std::uint64_t count, std::uint64_t first_tag);

}  // namespace ferry::link
