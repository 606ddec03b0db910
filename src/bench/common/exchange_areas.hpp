#pragma once
// This process's participants in device-to-device exchanges (beff, topo):
// each one's send and receive areas of message slots, a stream to fill,
// poison and check them, and a counter of wrong words. The untimed work
// around every measurement lives here; the timed exchanges are a transport's.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.hpp"
#include "transport/transport.hpp"

namespace ferry {

// Who a participant is, for the rows: its place among the participants, its device, its rank and host.
struct Member {
  int participant = 0;
  int device = 0;
  int rank = 0;
  std::string host;
};

// On rank 0, every rank's participants in the group, in participant order; empty elsewhere.
std::vector<Member> gather_members(World& world, const transport::Group& group);

// Whether the members are a rank each (mpirun) rather than the devices of one process.
bool one_rank_per_device(const std::vector<Member>& members);
// The layout an NCCL figure was measured in, for the notes that name the best NCCL variant. NCCL's users run a
// rank per GPU, and a one-process run cannot measure that layout, so it says what it compared with instead.
std::string nccl_layout(bool one_per_rank, std::string_view workload, int participants);

// What beff and topo say, alike, when a run cannot measure: fewer than 2
// participants (nothing lies between one device and itself), and a run in
// which everything asked for was skipped (`skipped`: each with its reason).
std::string needs_two_participants(std::string_view workload, int participants);
std::string nothing_measured(std::string_view workload, std::string_view asked,
                             const std::vector<std::string>& skipped);

class ExchangeAreas {
 public:
  // Participants `first_index`, first_index + 1, ... on `devices`, of `participants` in all;
  // `routes`: the most routes a plan on them takes (Group::routes); `memory`: where the send and receive areas
  // come from (transport::area_memory of the transport that will use them).
  ExchangeAreas(Backend& backend, const std::vector<int>& devices, int first_index, int participants,
                std::uint64_t area_bytes, std::uint64_t largest_message, int routes = 1,
                transport::AreaMemory memory = transport::AreaMemory::device);
  const transport::Group& group() const { return group_; }
  std::uint64_t area_bytes() const { return group_.area_bytes; }
  // Areas of the same participants, sizes and routes on `memory` (a transport that needs memory of its own,
  // transport::area_memory), or nothing when these already are on it.
  std::optional<ExchangeAreas> on_memory(Backend& backend, transport::AreaMemory memory) const;

  // Each returns once the work is done. `round` seeds the messages (topo fills them anew each round).
  void fill_send(const transport::ExchangePlan& plan, std::uint64_t round = 0);
  void poison_receive(const transport::ExchangePlan& plan);
  std::uint64_t wrong_words(const transport::ExchangePlan& plan, std::size_t local, std::uint64_t round = 0);
  // The test hook: one byte of the middle exchange's first message at the
  // first participant that receives one, if that participant is here.
  void corrupt_one_byte(const transport::ExchangePlan& plan, std::uint64_t round = 0);

 private:
  struct Local {
    std::unique_ptr<Stream> stream;
    Buffer send, receive, counter, counter_host;
  };
  transport::Group group_;
  std::vector<Local> locals_;
};

}  // namespace ferry
