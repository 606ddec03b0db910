#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "bench/common/exchange_areas.hpp"
#include "bench/common/message_corruption.hpp"
#include "bench/topo/topo.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ferry::topo {

const std::vector<Topology>& all_topologies() {
  static const std::vector<Topology> all = {Topology::pair, Topology::ring, Topology::fully_connected,
                                            Topology::host_staged, Topology::matrix};
  return all;
}

std::string_view to_string(Topology topology) {
  switch (topology) {
    case Topology::pair: return "pair";
    case Topology::ring: return "ring";
    case Topology::fully_connected: return "fully-connected";
    case Topology::host_staged: return "host-staged";
    case Topology::matrix: return "matrix";
  }
  return "?";
}

std::vector<Topology> parse_topologies(std::string_view text) {
  if (text == "all") return all_topologies();
  const std::string known = join(all_topologies(), ", ", [](Topology t) { return std::string(to_string(t)); });
  std::vector<Topology> chosen;
  for (std::string_view name : split(text, ',')) {
    const auto& all = all_topologies();
    const auto it = std::find_if(all.begin(), all.end(), [&](Topology t) { return to_string(t) == name; });
    if (it == all.end()) throw UsageError(fmt::format("unknown topology '{}': choose all, or some of {}", name, known));
    if (std::find(chosen.begin(), chosen.end(), *it) != chosen.end())
      throw UsageError(fmt::format("topology '{}' is listed twice", name));
    chosen.push_back(*it);
  }
  return chosen;
}

std::vector<std::uint64_t> regular_sizes(std::uint64_t largest) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = 1 << 10; bytes <= largest; bytes *= 2) sizes.push_back(bytes);
  return sizes;
}

std::vector<std::uint64_t> irregular_sizes(std::uint64_t largest) {
  // Odd, so no transfer granularity divides them; near 1 KiB x 4^k, and one beside the highlighted 512 KiB.
  static const std::vector<std::uint64_t> odd = {1001,    4099,    16411,    65537,    262147,   524289,
                                                 1048583, 4194319, 16777259, 67108879, 268435399};
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes : odd)
    if (bytes <= largest) sizes.push_back(bytes);
  return sizes;
}

std::vector<std::uint64_t> parse_sizes(std::string_view text, std::uint64_t largest_default) {
  if (text == "regular") return regular_sizes(largest_default);
  if (text == "irregular") return irregular_sizes(largest_default);
  return parse_byte_range(text);
}

TopoConfig TopoConfig::defaults(const Capabilities& capabilities, bool quick) {
  TopoConfig c;
  if (capabilities.gpu_timings) {
    c.rounds = quick ? 10 : 100;
    c.sizes = regular_sizes(quick ? 64ull << 20 : 256ull << 20);
    c.matrix_bytes = quick ? 64ull << 20 : 256ull << 20;
  } else {
    // The emulator's exchanges are thread hand-offs on a CPU: few rounds of small sizes keep CI in seconds.
    c.rounds = quick ? 3 : 5;
    c.sizes = regular_sizes(quick ? 256 << 10 : 1 << 20);
    c.matrix_bytes = 256 << 10;
    c.latency_exchanges = 20;
  }
  return c;
}

void parse_corruption(std::string_view text, TopoConfig& config) {
  const MessageCorruption corruption = parse_message_corruption(text, corrupt_variable);
  config.corrupt_bytes = corruption.bytes;
  config.corrupt_round = corruption.index;
}

void validate(Backend& backend, const TopoConfig& config, int participants) {
  if (config.devices.empty()) throw UsageError("no device selected");
  if (std::set<int>(config.devices.begin(), config.devices.end()).size() != config.devices.size())
    throw UsageError("a device is listed twice in --devices");
  if (config.topologies.empty()) throw UsageError("no topology selected");
  if (participants < 2) throw UsageError(needs_two_participants("topo", participants));
  if (config.rounds < 1) throw UsageError("--rounds must be at least 1");
  // A hook that names a round the run does not have would corrupt nothing, and a test of it pass unseen.
  if (config.corrupt_bytes > 0 && config.corrupt_round >= config.rounds)
    throw UsageError(
        fmt::format("{}: round {} of a run of {}", corrupt_variable, config.corrupt_round + 1, config.rounds));
  if (config.sizes.empty()) throw UsageError("no message size selected");
  for (transport::Kind kind : config.transports)
    if (transport::through_host(kind))
      throw UsageError(fmt::format("--transport {}: the path through the host is a topology of its own "
                                   "(--topology host-staged), not a direct transport",
                                   to_string(kind)));
  // The largest areas: a fully-connected exchange of the largest size, a message slot per peer.
  const std::uint64_t largest = std::max(config.sizes.back(), config.matrix_bytes);
  const auto peers = static_cast<std::uint64_t>(std::max(1, participants - 1));
  const std::uint64_t area = peers * transport::slot_pitch(largest);
  for (int device : config.devices) {
    const DeviceStatus status = backend.device_status(device);  // throws for a device that does not exist
    if (2 * area > status.free_bytes)
      throw UsageError(fmt::format("messages of up to {} to {} peer(s) need {} on device {} (a send and a receive "
                                   "area), which has {} free",
                                   format_bytes(largest), peers, format_bytes(2 * area), device,
                                   format_capacity(status.free_bytes)));
  }
}

}  // namespace ferry::topo
