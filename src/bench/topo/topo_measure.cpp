// A size's rounds on an open transport: each round fills the send areas with
// values of element index and round, poisons the receive areas, starts every
// participant at once, and checks every byte that arrived, so a round that
// moved the wrong bytes is named, not averaged away.
#include <fmt/format.h>

#include <algorithm>

#include "bench/topo/topo_run.hpp"
#include "core/check.hpp"
#include "core/units.hpp"

namespace ferry::topo {

using transport::ExchangePlan;
using transport::Pattern;

Rounds RoundRunner::bandwidth(Pattern pattern, std::uint64_t bytes) {
  const ExchangePlan plan = transport::make_plan(pattern, areas_.group().participants, bytes, 1, areas_.area_bytes());
  return run_rounds(plan, 1);
}

Rounds RoundRunner::latency() {
  const ExchangePlan plan = transport::make_plan(Pattern::ping_pong, areas_.group().participants, config_.latency_bytes,
                                                 config_.latency_exchanges, areas_.area_bytes());
  return run_rounds(plan, config_.latency_exchanges);
}

Rounds RoundRunner::run_rounds(const ExchangePlan& plan, double per_exchange) {
  Rounds rounds;
  rounds.bytes = plan.bytes;
  rounds.how = transport_.how(plan.bytes);
  const auto one_round = [&](std::uint64_t round) {
    areas_.fill_send(plan, round);
    areas_.poison_receive(plan);
    transport_.prepare(plan);  // a graph is captured here, untimed, before the ranks start together
    world_.barrier();          // every rank starts sending together: ping-ping
    const std::vector<double> seconds = transport_.run(plan);
    return world_.max(*std::max_element(seconds.begin(), seconds.end()));
  };
  // A first exchange may capture a graph, set up connections or load code: not a round.
  one_round(static_cast<std::uint64_t>(config_.rounds));
  for (int r = 0; r < config_.rounds; ++r) {
    const auto round = static_cast<std::uint64_t>(r);
    rounds.seconds.push_back(one_round(round) / per_exchange);
    if (config_.corrupt_bytes == plan.bytes && config_.corrupt_round == r && plan.pattern != Pattern::ping_pong)
      areas_.corrupt_one_byte(plan, round);
    std::int64_t wrong = 0;
    for (std::size_t k = 0; k < areas_.group().local.size(); ++k)
      wrong += static_cast<std::int64_t>(wrong_reported("topo.message", areas_.wrong_words(plan, k, round)));
    // Across ranks: a round is wrong when any rank saw a wrong word; the count is the most any rank saw.
    wrong = world_.max(wrong);
    if (wrong > 0 && rounds.first_wrong_round < 0) rounds.first_wrong_round = r;
    rounds.wrong_words += static_cast<std::uint64_t>(wrong);
  }
  world_.progressed(
      fmt::format("{} rounds of {} by {}", config_.rounds, format_bytes(plan.bytes), to_string(transport_.kind())));
  return rounds;
}

}  // namespace ferry::topo
