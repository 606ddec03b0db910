// Which ranks still answer (transport/liveness.hpp): ranks of one process,
// each with its own port, ask each other; one that is gone, or whose address
// leads nowhere, is named silent.
#include "transport/liveness.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

namespace ferry {
namespace liveness_test {

using std::chrono::milliseconds;

// N ranks' endpoints shared with each other, as World does through MPI.
std::vector<std::unique_ptr<Liveness>> ranks(int n) {
  std::vector<std::unique_ptr<Liveness>> all;
  std::vector<std::vector<std::uint8_t>> endpoints;
  for (int r = 0; r < n; ++r) {
    all.push_back(std::make_unique<Liveness>(r));
    endpoints.push_back(all.back()->endpoint());
  }
  for (auto& rank : all) rank->set_peers(endpoints);
  return all;
}

TEST(Liveness, EveryLiveRankAnswers) {
  const auto all = ranks(3);
  EXPECT_EQ(all[0]->silent_ranks(milliseconds(2000)), std::vector<int>{});
  EXPECT_EQ(all[2]->silent_ranks(milliseconds(2000)), std::vector<int>{});
}

TEST(Liveness, ARankThatIsGoneIsNamedAndOnlyIt) {
  auto all = ranks(4);
  all[2].reset();  // its port closed, as a rank killed
  EXPECT_EQ(all[0]->silent_ranks(milliseconds(500)), std::vector<int>{2});
  EXPECT_EQ(all[3]->silent_ranks(milliseconds(500)), std::vector<int>{2});
}

TEST(Liveness, ARankWhoseAddressLeadsNowhereIsNamed) {
  auto all = ranks(2);
  std::vector<std::vector<std::uint8_t>> endpoints = {all[0]->endpoint(), all[1]->endpoint()};
  // Rank 1 as if on a host whose link is down: an address nothing answers (TEST-NET-1, RFC 5737).
  const std::uint32_t nowhere = inet_addr("192.0.2.1");
  endpoints[1].resize(6);
  std::memcpy(endpoints[1].data() + 2, &nowhere, 4);
  all[0]->set_peers(endpoints);
  EXPECT_EQ(all[0]->silent_ranks(milliseconds(500)), std::vector<int>{1});
}

TEST(Liveness, TheSilentAreNamedWithTheirHostsOrThisHostAsTheOneCutOff) {
  const std::vector<std::string> hosts = {"node1", "node2", "node3", "node3"};
  EXPECT_EQ(silent_in_words({}, hosts, 0), "");
  EXPECT_EQ(silent_in_words({1}, hosts, 0), "rank 1 (node2) does not answer: its host is cut off or the rank is gone");
  EXPECT_EQ(silent_in_words({2, 3}, hosts, 0),
            "ranks 2, 3 (node3) do not answer: their hosts are cut off or the ranks are gone");
  EXPECT_EQ(silent_in_words({0, 1}, hosts, 2),
            "ranks 0, 1 (node1, node2) do not answer: their hosts are cut off or the ranks are gone");
  EXPECT_EQ(silent_in_words({0, 1, 3}, hosts, 2), "no other rank answers: this rank's host (node3) is the one cut off");
  // Two ranks: the other's silence cannot say which side is cut off.
  EXPECT_EQ(silent_in_words({1}, {"node1", "node2"}, 0),
            "rank 1 (node2) does not answer: its host is cut off or the rank is gone");
}

}  // namespace liveness_test
}  // namespace ferry
