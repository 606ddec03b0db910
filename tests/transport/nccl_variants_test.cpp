// What ferry asks of NCCL, tested where there is no NCCL: the calls each
// exchange issues, the graph that nccl-graph captures once and replays, and
// the choice of the best variant that the others are compared with.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "backend/emu/emu_backend.hpp"
#include "core/error.hpp"
#include "transport/nccl_calls.hpp"
#include "transport/plan_graphs.hpp"
#include "transport/transport.hpp"

namespace ferry::transport {
namespace {

using Op = NcclCall::Op;

TEST(NcclCalls, ARingParticipantSendsRightAndReceivesFromTheLeftAtTheExchangesSlot) {
  const ExchangePlan plan = make_plan(Pattern::ring, 3, 1000, 9, 16 * slot_pitch(1000));
  for (int p = 0; p < 3; ++p) {
    const std::vector<NcclCall> calls = nccl_calls(plan, p, 5);
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0], (NcclCall{Op::send, (p + 1) % 3, plan.offset(5), 1000}));
    EXPECT_EQ(calls[1], (NcclCall{Op::recv, (p + 2) % 3, plan.offset(5), 1000}));
  }
}

TEST(NcclCalls, APingPongSendsOneWayPerExchangeAndLeavesTheOthersIdle) {
  const ExchangePlan plan = make_plan(Pattern::ping_pong, 4, 8, 4, 4 * slot_pitch(8));
  EXPECT_EQ(nccl_calls(plan, 0, 0), (std::vector<NcclCall>{{Op::send, 1, plan.offset(0), 8}}));
  EXPECT_EQ(nccl_calls(plan, 1, 0), (std::vector<NcclCall>{{Op::recv, 0, plan.offset(0), 8}}));
  EXPECT_EQ(nccl_calls(plan, 0, 1), (std::vector<NcclCall>{{Op::recv, 1, plan.offset(1), 8}}));
  EXPECT_EQ(nccl_calls(plan, 1, 1), (std::vector<NcclCall>{{Op::send, 0, plan.offset(1), 8}}));
  EXPECT_TRUE(nccl_calls(plan, 2, 0).empty());
  EXPECT_TRUE(nccl_calls(plan, 3, 1).empty());
}

TEST(NcclCalls, FullyConnectedMeetsEveryOtherParticipantOnceEachWayInItsRoutesSlot) {
  const ExchangePlan plan = make_plan(Pattern::fully_connected, 4, 256, 2, 8 * 3 * slot_pitch(256));
  const std::vector<NcclCall> calls = nccl_calls(plan, 0, 1);
  ASSERT_EQ(calls.size(), 6u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(calls[2 * k], (NcclCall{Op::send, k + 1, plan.offset(1, k), 256}));
    EXPECT_EQ(calls[2 * k + 1], (NcclCall{Op::recv, 3 - k, plan.offset(1, k), 256}));
  }
}

TEST(BestNccl, IsTheNcclVariantWithTheHighestFigureWhateverElseIsFaster) {
  EXPECT_EQ(best_nccl({{Kind::p2p_sm, 40}, {Kind::nccl, 10}, {Kind::nccl_graph, 12}, {Kind::nccl_graph_reg, 11}}),
            Kind::nccl_graph);
  EXPECT_EQ(best_nccl({{Kind::nccl_graph_reg, 13}, {Kind::nccl, 10}, {Kind::mpi_cuda, 50}}), Kind::nccl_graph_reg);
  EXPECT_EQ(best_nccl({{Kind::nccl, 10}}), Kind::nccl);
}

TEST(BestNccl, IsNoneWithoutAnNcclVariantAndTheSimplerVariantKeepsATie) {
  EXPECT_EQ(best_nccl({{Kind::p2p_ce, 20}, {Kind::p2p_sm, 40}}), std::nullopt);
  EXPECT_EQ(best_nccl({}), std::nullopt);
  EXPECT_EQ(best_nccl({{Kind::nccl, 10}, {Kind::nccl_graph, 10}}), Kind::nccl);
}

TEST(NcclVariants, HaveNamesAndOnlyTheRegisteredOneTakesNcclsMemory) {
  EXPECT_EQ(parse_kinds("nccl-graph,nccl-graph-reg"), (std::vector<Kind>{Kind::nccl_graph, Kind::nccl_graph_reg}));
  for (Kind k : all_kinds()) {
    EXPECT_EQ(is_nccl(k), to_string(k).starts_with("nccl")) << to_string(k);
    EXPECT_EQ(area_memory(k, world()) == AreaMemory::nccl, k == Kind::nccl_graph_reg) << to_string(k);
  }
}

TEST(NcclVariants, AreSkippedWithTheReasonWhereThereIsNoNccl) {
  emu::EmuBackend backend;
  Group group;
  group.participants = 2;
  for (Kind k : {Kind::nccl, Kind::nccl_graph, Kind::nccl_graph_reg})
    EXPECT_NE(unavailable_reason(k, backend, world(), group).find("NCCL"), std::string::npos) << to_string(k);
}

// A plan's work captured on two streams: each replay stamps its count into each stream's buffer.
class PlanGraphsOnTheEmulator : public ::testing::Test {
 protected:
  emu::EmuBackend backend;
  std::vector<std::unique_ptr<Stream>> owned;
  std::vector<Stream*> streams;
  std::vector<Buffer> buffers;
  int enqueued = 0;

  void SetUp() override {
    for (int d = 0; d < 2; ++d) {
      owned.push_back(backend.make_stream(d));
      streams.push_back(owned.back().get());
      buffers.push_back(backend.allocate_device(d, 64));
    }
  }

  std::function<void(const ExchangePlan&)> stamp() {
    return [this](const ExchangePlan& plan) {
      ++enqueued;
      for (std::size_t k = 0; k < streams.size(); ++k)
        streams[k]->fill(buffers[k].data(), static_cast<std::uint8_t>(plan.exchanges()), 64);
    };
  }
};

TEST_F(PlanGraphsOnTheEmulator, APlanIsCapturedOnceAndReplayedEveryRun) {
  PlanGraphs graphs;
  const ExchangePlan plan = make_plan(Pattern::ring, 2, 8, 7, 64 * slot_pitch(8));
  for (int run = 0; run < 5; ++run) {
    graphs.prepare(plan, streams, stamp());
    for (std::size_t k = 0; k < streams.size(); ++k) {
      streams[k]->fill(buffers[k].data(), 0xA5, 64);  // poisoned: only the replay can stamp it
      graphs.replay(k, *streams[k]);
      streams[k]->synchronize();
      EXPECT_EQ(std::to_integer<int>(buffers[k].data()[63]), 7) << "run " << run << ", stream " << k;
    }
  }
  EXPECT_EQ(graphs.captures(), 1);
  EXPECT_EQ(enqueued, 1);  // the plan's work was issued once, at capture
  EXPECT_EQ(graphs.replays(), 10);
}

TEST_F(PlanGraphsOnTheEmulator, AnotherPlanIsCapturedAnew) {
  PlanGraphs graphs;
  const ExchangePlan seven = make_plan(Pattern::ring, 2, 8, 7, 64 * slot_pitch(8));
  const ExchangePlan nine = make_plan(Pattern::ring, 2, 8, 9, 64 * slot_pitch(8));
  graphs.prepare(seven, streams, stamp());
  EXPECT_TRUE(graphs.holds(seven));
  graphs.prepare(nine, streams, stamp());
  EXPECT_TRUE(graphs.holds(nine));
  EXPECT_FALSE(graphs.holds(seven));
  graphs.replay(1, *streams[1]);
  streams[1]->synchronize();
  EXPECT_EQ(std::to_integer<int>(buffers[1].data()[0]), 9);
  EXPECT_EQ(graphs.captures(), 2);
}

TEST_F(PlanGraphsOnTheEmulator, WorkThatThrowsLeavesNoStreamCapturingAndNothingHeld) {
  PlanGraphs graphs;
  const ExchangePlan plan = make_plan(Pattern::ring, 2, 8, 7, 64 * slot_pitch(8));
  EXPECT_THROW(graphs.prepare(plan, streams, [](const ExchangePlan&) { throw RuntimeFailure("NCCL error"); }),
               RuntimeFailure);
  EXPECT_FALSE(graphs.holds(plan));
  EXPECT_EQ(graphs.captures(), 0);
  EXPECT_THROW(graphs.replay(0, *streams[0]), RuntimeFailure);
  graphs.prepare(plan, streams, stamp());  // a stream left capturing would refuse this
  EXPECT_EQ(graphs.captures(), 1);
}

}  // namespace
}  // namespace ferry::transport
