// beff and topo set every transport beside NCCL at its best: the NCCL variant
// with the highest figure of the same run, named in a note; and a ring's
// figures as nccl-tests' sendrecv gives them. Made from measured records
// written here, since the emulator has no NCCL.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "bench/beff/beff_run.hpp"
#include "bench/row_params.hpp"
#include "bench/topo/topo_run.hpp"
#include "core/units.hpp"

namespace ferry {
namespace {

using transport::Kind;

const Row& row_with(const WorkloadResult& r, const std::string& section, const std::string& transport,
                    const std::string& topology = "") {
  for (const Row& row : r.rows) {
    if (row.section != section) continue;
    bool match = true;
    for (const auto& [key, value] : row.params) {
      if (key == "transport") match = match && std::get<std::string>(value) == transport;
      if (key == "topology" && !topology.empty()) match = match && std::get<std::string>(value) == topology;
    }
    if (match) return row;
  }
  throw std::runtime_error("no " + section + " row of " + transport);
}

bool has_note(const WorkloadResult& r, const std::string& text) {
  return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.find(text) != n.npos; });
}

// A transport whose exchanges take latency + bytes / rate, on both participants of a ring of 2.
beff::TransportRecord beff_record(Kind kind, double latency_s, double rate_Bps) {
  beff::TransportRecord record;
  record.kind = kind;
  const auto samples = [&](std::uint64_t bytes, std::int64_t exchanges) {
    const double s = static_cast<double>(exchanges) * (latency_s + static_cast<double>(bytes) / rate_Bps);
    // Three repetitions: the median is 1.25 x the best.
    return std::vector<beff::Samples>{{0, {s, 1.25 * s, 1.5 * s}, 0}, {1, {s, 1.25 * s, 1.5 * s}, 0}};
  };
  record.ping_pong = {8, 100, "how", samples(8, 100)};
  for (std::uint64_t bytes : beff::definition_sizes()) record.sizes.push_back({bytes, 10, "how", samples(bytes, 10)});
  return record;
}

WorkloadResult beff_result(const std::vector<beff::TransportRecord>& records) {
  beff::BeffConfig config;
  config.repetitions = 3;
  const std::vector<Member> members = {{0, 0, 0, "h"}, {1, 1, 0, "h"}};
  return beff::make_result(config, members, records, {});
}

TEST(BeffVsBestNccl, EveryTransportIsComparedWithTheFastestNcclVariantOfTheRun) {
  const WorkloadResult r =
      beff_result({beff_record(Kind::p2p_sm, 1e-6, 300e9), beff_record(Kind::nccl, 12e-6, 90e9),
                   beff_record(Kind::nccl_graph, 4e-6, 90e9), beff_record(Kind::nccl_graph_reg, 5e-6, 150e9)});
  const auto beff_of = [&](const std::string& t) { return row_with(r, "beff", t).value(); };
  const double best = std::max(beff_of("nccl-graph"), beff_of("nccl-graph-reg"));
  ASSERT_GT(best, beff_of("nccl"));
  for (const std::string t : {"p2p-sm", "nccl", "nccl-graph", "nccl-graph-reg"})
    EXPECT_EQ(std::get<std::string>(param(row_with(r, "beff", t), "vs best NCCL")),
              fmt::format("{:.2f}x", beff_of(t) / best))
        << t;
  const std::string winner = beff_of("nccl-graph") > beff_of("nccl-graph-reg") ? "nccl-graph" : "nccl-graph-reg";
  EXPECT_TRUE(has_note(r, "best NCCL variant: " + winner +
                              ", in one process driving every GPU (NCCL with a rank "
                              "per GPU is not in a one-process run: mpirun -np 2 ferry run beff measures it)"))
      << winner;
  EXPECT_TRUE(has_note(r, fmt::format("best transport p2p-sm: b_eff {:.2f}x the best NCCL variant's ({})",
                                      beff_of("p2p-sm") / best, winner)));
  EXPECT_FALSE(has_note(r, "nccl's, same run"));  // the host-launched variant is no longer the yardstick
}

TEST(BeffVsBestNccl, TheBestNcclVariantsOneWayLatencyIsPrinted) {
  const WorkloadResult r =
      beff_result({beff_record(Kind::nccl, 12e-6, 90e9), beff_record(Kind::nccl_graph, 3e-6, 90e9)});
  const double one_way_us = to_us(row_with(r, "latency", "nccl-graph").value());
  EXPECT_TRUE(has_note(r, fmt::format("best NCCL variant: nccl-graph, in one process")));
  EXPECT_TRUE(has_note(r, fmt::format("one-way 8 B latency {:.2f} us", one_way_us)));
}

TEST(BeffVsBestNccl, UnderMpirunTheBestVariantIsNamedAsARankPerGpu) {
  beff::BeffConfig config;
  config.repetitions = 3;
  const std::vector<Member> ranks = {{0, 0, 0, "h"}, {1, 1, 1, "h"}};
  const WorkloadResult r = beff::make_result(config, ranks, {beff_record(Kind::nccl_graph_reg, 5e-6, 150e9)}, {});
  EXPECT_TRUE(has_note(r, "best NCCL variant: nccl-graph-reg, a rank per GPU (b_eff")) << r.notes.front();
  EXPECT_FALSE(has_note(r, "not in a one-process run"));
}

TEST(BeffVsBestNccl, WithoutNcclTheComparisonIsADash) {
  const WorkloadResult r = beff_result({beff_record(Kind::p2p_ce, 5e-6, 150e9)});
  EXPECT_EQ(std::get<std::string>(param(row_with(r, "beff", "p2p-ce"), "vs best NCCL")), "-");
  EXPECT_FALSE(has_note(r, "best NCCL variant"));
}

TEST(BeffSendrecvFigures, AreNcclTestsAlgbwAndBusbwOfTheMedianRepetition) {
  const WorkloadResult r = beff_result({beff_record(Kind::nccl_graph, 4e-6, 90e9)});
  for (const Row& row : r.rows) {
    if (row.section != "ring") continue;
    const auto bytes = static_cast<double>(std::get<std::int64_t>(param(row, "MSize bytes")));
    const double per_exchange = 1.25 * (4e-6 + bytes / 90e9);  // the median repetition
    EXPECT_NEAR(std::get<double>(param(row, "algbw GB/s")), to_GBps(bytes / per_exchange), 1e-9 * bytes);
    EXPECT_EQ(std::get<double>(param(row, "busbw GB/s")), std::get<double>(param(row, "algbw GB/s")));
  }
}

// A topology on one transport whose rounds at every size take latency + bytes / rate.
topo::TopologyRecord topo_record(const std::string& name, Kind kind, double latency_s, double rate_Bps) {
  topo::TopologyRecord t;
  t.name = name;
  t.kind = kind;
  t.pattern = name == "pair one-way" ? transport::Pattern::one_way : transport::Pattern::ring;
  t.members = "0,1";
  for (std::uint64_t bytes : {1ull << 10, 1ull << 20, 1ull << 28}) {
    const double s = latency_s + static_cast<double>(bytes) / rate_Bps;
    t.sizes.push_back({bytes, "how", {s, s, 1.1 * s}, 0, -1});
  }
  return t;
}

TEST(TopoVsBestNccl, EachTopologysPeakIsComparedWithItsBestNcclVariant) {
  const std::vector<topo::TopologyRecord> records = {topo_record("pair both", Kind::p2p_sm, 1e-6, 360e9),
                                                     topo_record("pair both", Kind::nccl, 15e-6, 330e9),
                                                     topo_record("pair both", Kind::nccl_graph_reg, 5e-6, 345e9),
                                                     topo_record("pair one-way", Kind::p2p_sm, 1e-6, 200e9),
                                                     topo_record("pair one-way", Kind::nccl_graph, 5e-6, 100e9)};
  const WorkloadResult r = topo::make_result(topo::TopoConfig{}, records, {}, {}, {});
  const auto peak = [&](const std::string& topology, const std::string& t) {
    return row_with(r, "peak", t, topology).value();
  };
  const auto vs = [&](const std::string& topology, const std::string& t) {
    return std::get<std::string>(param(row_with(r, "peak", t, topology), "vs best NCCL"));
  };
  EXPECT_EQ(vs("pair both", "p2p-sm"),
            fmt::format("{:.2f}x", peak("pair both", "p2p-sm") / peak("pair both", "nccl-graph-reg")));
  EXPECT_EQ(vs("pair both", "nccl"),
            fmt::format("{:.2f}x", peak("pair both", "nccl") / peak("pair both", "nccl-graph-reg")));
  EXPECT_EQ(vs("pair both", "nccl-graph-reg"), "1.00x");
  EXPECT_EQ(vs("pair one-way", "p2p-sm"),
            fmt::format("{:.2f}x", peak("pair one-way", "p2p-sm") / peak("pair one-way", "nccl-graph")));
  EXPECT_TRUE(has_note(r, "pair both: best NCCL variant nccl-graph-reg, in one process driving every GPU (NCCL with "
                          "a rank per GPU is not in a one-process run: mpirun -np 2 ferry run topo measures it), "
                          "peaks at"));
  EXPECT_TRUE(has_note(r, "pair one-way: best NCCL variant nccl-graph, in one process"));
}

TEST(TopoVsBestNccl, UnderMpirunTheBestVariantIsNamedAsARankPerGpu) {
  topo::TopologyRecord nccl = topo_record("pair both", Kind::nccl_graph_reg, 5e-6, 345e9);
  nccl.one_per_rank = true;
  const WorkloadResult r = topo::make_result(topo::TopoConfig{}, {nccl}, {}, {}, {});
  EXPECT_TRUE(has_note(r, "pair both: best NCCL variant nccl-graph-reg, a rank per GPU, peaks at"));
}

TEST(TopoSendrecvFigures, ARingsBandwidthIsAlgbwAndBusbwAndAOneWayPairHasNone) {
  const WorkloadResult r = topo::make_result(topo::TopoConfig{},
                                             {topo_record("pair both", Kind::nccl, 5e-6, 300e9),
                                              topo_record("pair one-way", Kind::nccl, 5e-6, 300e9)},
                                             {}, {}, {});
  for (const Row& row : r.rows) {
    if (row.section != "bandwidth") continue;
    if (std::get<std::string>(param(row, "topology")) == "pair both") {
      EXPECT_DOUBLE_EQ(std::get<double>(param(row, "algbw GB/s")), to_GBps(row.value()));
      EXPECT_DOUBLE_EQ(std::get<double>(param(row, "busbw GB/s")), to_GBps(row.value()));
    } else {
      EXPECT_EQ(std::get<std::string>(param(row, "algbw GB/s")), "-");
    }
  }
}

}  // namespace
}  // namespace ferry
