#include "transport/rank_memory.hpp"

#include <fmt/format.h>

#include <cstring>

#include "core/error.hpp"

namespace ferry::transport {
namespace {

// participant, device, handle count, then each handle's size and bytes: 32-bit words in the host's order,
// since every rank runs on this host.
void put(std::vector<std::uint8_t>& out, std::uint32_t word) {
  const auto at = out.size();
  out.resize(at + sizeof word);
  std::memcpy(out.data() + at, &word, sizeof word);
}

class Reader {
 public:
  explicit Reader(const std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}
  std::uint32_t word() {
    std::uint32_t w = 0;
    take(&w, sizeof w);
    return w;
  }
  std::vector<std::uint8_t> bytes(std::size_t count) {
    std::vector<std::uint8_t> out(count);
    take(out.data(), count);
    return out;
  }

 private:
  void take(void* into, std::size_t count) {
    if (at_ + count > bytes_.size()) throw RuntimeFailure("a rank's shared memory handles arrived cut short");
    std::memcpy(into, bytes_.data() + at_, count);
    at_ += count;
  }
  const std::vector<std::uint8_t>& bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<RankMemory> map_every_rank(Backend& backend, const World& world, int participant, int device,
                                       const std::vector<std::vector<std::uint8_t>>& handles) {
  for (const auto& h : handles)
    if (h.empty()) throw RuntimeFailure("a transport was given memory other ranks cannot map (see area_memory)");
  std::vector<std::uint8_t> mine;
  put(mine, static_cast<std::uint32_t>(participant));
  put(mine, static_cast<std::uint32_t>(device));
  put(mine, static_cast<std::uint32_t>(handles.size()));
  for (const auto& h : handles) {
    put(mine, static_cast<std::uint32_t>(h.size()));
    mine.insert(mine.end(), h.begin(), h.end());
  }
  const std::vector<std::vector<std::uint8_t>> every = world.all_gather(mine);
  std::vector<RankMemory> by_participant(every.size());
  for (std::size_t r = 0; r < every.size(); ++r) {
    Reader read(every[r]);
    RankMemory m;
    m.participant = static_cast<int>(read.word());
    m.device = static_cast<int>(read.word());
    const std::uint32_t count = read.word();
    if (m.participant < 0 || m.participant >= static_cast<int>(every.size()) || count != handles.size())
      throw RuntimeFailure(fmt::format("rank {} sent participant {} with {} shared memory handles; this rank expected "
                                       "one of 0..{} with {}",
                                       r, m.participant, count, every.size() - 1, handles.size()));
    for (std::uint32_t h = 0; h < count; ++h) {
      std::vector<std::uint8_t> handle = read.bytes(read.word());
      if (static_cast<int>(r) != world.rank()) m.buffers.push_back(backend.open_shared(device, handle));
    }
    const int at = m.participant;
    by_participant[static_cast<std::size_t>(at)] = std::move(m);
  }
  return by_participant;
}

}  // namespace ferry::transport
