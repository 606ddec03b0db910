#include "bench/common/exchange_areas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "bench/common/messages.hpp"
#include "bench/common/verify.hpp"

namespace ferry {

std::string needs_two_participants(std::string_view workload, int participants) {
  return fmt::format("{0} measures between devices: it needs 2 or more (--devices 0,1 on a machine with two GPUs), "
                     "or 2 or more MPI ranks (mpirun -np 2 ferry run {0}); this run has {1}",
                     workload, participants);
}

std::string nothing_measured(std::string_view workload, std::string_view asked,
                             const std::vector<std::string>& skipped) {
  std::string reasons;
  for (const std::string& why : skipped) reasons += (reasons.empty() ? "" : "; ") + why;
  return fmt::format("{}: nothing was measured: every {} asked for was skipped here ({})", workload, asked, reasons);
}

std::vector<Member> gather_members(World& world, const transport::Group& group) {
  // "participant rank device host" per line, from every rank.
  std::string mine;
  for (const transport::Participant& p : group.local)
    mine += fmt::format("{} {} {} {}\n", p.index, world.rank(), p.device, world.host());
  std::vector<Member> members;
  for (const std::string& text : world.gather(mine)) {
    std::istringstream lines(text);
    Member m;
    while (lines >> m.participant >> m.rank >> m.device >> m.host) members.push_back(m);
  }
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.participant < b.participant; });
  return members;
}

bool one_rank_per_device(const std::vector<Member>& members) {
  return std::any_of(members.begin(), members.end(), [](const Member& m) { return m.rank != 0; });
}

std::string nccl_layout(bool one_per_rank, std::string_view workload, int participants) {
  if (one_per_rank) return "a rank per GPU";
  return fmt::format("in one process driving every GPU (NCCL with a rank per GPU is not in a one-process run: "
                     "mpirun -np {} ferry run {} measures it)",
                     participants, workload);
}

ExchangeAreas::ExchangeAreas(Backend& backend, const std::vector<int>& devices, int first_index, int participants,
                             std::uint64_t area_bytes, std::uint64_t largest_message, int routes,
                             transport::AreaMemory memory) {
  group_.participants = participants;
  group_.routes = routes;
  group_.memory = memory;
  group_.area_bytes = area_bytes;
  group_.largest_message = largest_message;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    Local local;
    local.stream = backend.make_stream(devices[k]);
    local.send = transport::allocate_area(memory, backend, devices[k], area_bytes);
    local.receive = transport::allocate_area(memory, backend, devices[k], area_bytes);
    local.counter = backend.allocate_device(devices[k], sizeof(unsigned long long));
    local.counter_host = backend.allocate_host(MemoryKind::pinned, sizeof(unsigned long long));
    group_.local.push_back({.index = first_index + static_cast<int>(k),
                            .device = devices[k],
                            .send = local.send.data(),
                            .receive = local.receive.data(),
                            .receive_handle = memory == transport::AreaMemory::shared
                                                  ? backend.export_shared(local.receive)
                                                  : std::vector<std::uint8_t>{}});
    locals_.push_back(std::move(local));
  }
}

std::optional<ExchangeAreas> ExchangeAreas::on_memory(Backend& backend, transport::AreaMemory memory) const {
  if (memory == group_.memory) return std::nullopt;
  std::vector<int> devices;
  for (const transport::Participant& p : group_.local) devices.push_back(p.device);
  return std::make_optional<ExchangeAreas>(backend, devices, group_.local.front().index, group_.participants,
                                           group_.area_bytes, group_.largest_message, group_.routes, memory);
}

void ExchangeAreas::fill_send(const transport::ExchangePlan& plan, std::uint64_t round) {
  for (std::size_t k = 0; k < locals_.size(); ++k)
    enqueue_fill(*locals_[k].stream, locals_[k].send.as<unsigned char>(), plan, group_.local[k].index, round);
  for (Local& local : locals_) local.stream->synchronize();
}

void ExchangeAreas::poison_receive(const transport::ExchangePlan& plan) {
  const auto bytes = static_cast<std::uint64_t>(plan.slots.slots_used()) * plan.pitch;
  for (Local& local : locals_) local.stream->fill(local.receive.data(), poison_byte, bytes);
  for (Local& local : locals_) local.stream->synchronize();
}

std::uint64_t ExchangeAreas::wrong_words(const transport::ExchangePlan& plan, std::size_t k, std::uint64_t round) {
  Local& local = locals_[k];
  local.stream->fill(local.counter.data(), 0, sizeof(unsigned long long));
  enqueue_count_wrong(*local.stream, local.receive.as<const unsigned char>(), plan, group_.local[k].index, round,
                      local.counter.as<unsigned long long>());
  local.stream->copy(local.counter_host.data(), local.counter.data(), sizeof(unsigned long long));
  local.stream->synchronize();
  return *local.counter_host.as<unsigned long long>();
}

void ExchangeAreas::corrupt_one_byte(const transport::ExchangePlan& plan, std::uint64_t round) {
  const std::int64_t middle = plan.slots.middle();
  int receiver = 0;
  while (receiver < plan.participants && plan.route(receiver, middle).receive_from < 0) ++receiver;
  for (std::size_t k = 0; k < locals_.size(); ++k) {
    if (group_.local[k].index != receiver) continue;
    const std::int64_t slot = plan.slots.slot(middle);
    const int sender = expected_sender(plan, receiver, slot);
    if (sender < 0) return;
    const std::uint64_t at = plan.bytes / 2;
    const auto right = pattern_byte(at, message_seed(sender, slot, 0, plan, round));
    locals_[k].stream->fill(locals_[k].receive.data() + plan.offset(middle) + at,
                            static_cast<std::uint8_t>(right ^ 0xFF), 1);
    locals_[k].stream->synchronize();
  }
}

}  // namespace ferry
