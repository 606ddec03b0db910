// topo's figures from times the test chooses: a round lasts as long as its
// slowest device; GB/s = bytes each device sends / that time, the median over
// rounds, min and max beside it; the peak is the best median over sizes; a
// latency round is its slowest device's time / its exchanges. The rows are
// built from records the test writes, and the rounds from a transport whose
// seconds the test scripts while the emulator moves and checks the bytes.
// Every set of times is chosen so that another choice (the fastest device,
// the best or the mean round) gives another number.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backend/emu/emu_backend.hpp"
#include "bench/row_params.hpp"
#include "bench/scripted_seconds.hpp"
#include "bench/topo/topo_run.hpp"
#include "core/units.hpp"

namespace ferry::topo_rows_test {
namespace {

using topo::Rounds;
using topo::TopologyRecord;
using transport::Kind;
using transport::Pattern;

constexpr int rounds_per_size = 5;

Rounds rounds(std::uint64_t bytes, const std::vector<double>& values, double unit) {
  Rounds r;
  r.bytes = bytes;
  r.how = "scripted";
  for (double v : values) r.seconds.push_back(v * unit);
  return r;
}

topo::TopoConfig config() {
  topo::TopoConfig c;
  c.rounds = rounds_per_size;
  c.sizes = {1000, 4096, 65537};
  c.highlighted_bytes = 4096;
  return c;
}

// A ring of 3 devices, a message each a round. Median rounds 3, 12 and 190 us: the best median over sizes is
// 65537 B's (by the mean round it would be 1000 B's, by the best round 1000 B's too).
TopologyRecord ring() {
  TopologyRecord t;
  t.name = "ring";
  t.kind = Kind::p2p_ce;
  t.pattern = Pattern::ring;
  t.members = "0,1,2";
  t.routes = 1;
  t.theoretical = {1e9, "scripted link"};
  t.link = {2e9, "link: copies both ways at once, per direction"};
  t.sizes = {rounds(1000, {4, 1, 9, 2, 3}, 1e-6), rounds(4096, {10, 12, 11, 40, 13}, 1e-6),
             rounds(65537, {200, 180, 190, 185, 900}, 1e-6)};
  return t;
}

// Fully-connected: 2 messages a device a round. Median rounds 5, 9 and 350 us: the peak is 4096 B's.
TopologyRecord fully_connected() {
  TopologyRecord t;
  t.name = "fully-connected";
  t.kind = Kind::p2p_ce;
  t.pattern = Pattern::fully_connected;
  t.members = "0,1,2";
  t.routes = 2;
  t.theoretical = {1e9, "scripted links"};
  t.sizes = {rounds(1000, {3, 5, 4, 20, 6}, 1e-6), rounds(4096, {9, 7, 8, 30, 10}, 1e-6),
             rounds(65537, {300, 400, 350, 320, 1000}, 1e-6)};
  return t;
}

// The host path of the same pattern. Median rounds 50, 100 and 1000 us: the peak is 65537 B's.
TopologyRecord host_staged() {
  TopologyRecord t;
  t.name = "host-staged";
  t.kind = Kind::host_staged;
  t.pattern = Pattern::fully_connected;
  t.clock = transport::Clock::host;
  t.members = "0,1,2";
  t.routes = 2;
  t.theoretical = {1e9, "scripted store and forward"};
  t.sizes = {rounds(1000, {50, 40, 60, 45, 65}, 1e-6), rounds(4096, {100, 90, 80, 125, 110}, 1e-6),
             rounds(65537, {1000, 900, 1100, 950, 1200}, 1e-6)};
  return t;
}

topo::MatrixCell matrix_cell() {
  topo::MatrixCell cell;
  cell.kind = Kind::p2p_ce;
  cell.from = 0;
  cell.to = 1;
  cell.bandwidth = rounds(65536, {30, 10, 55, 20, 40}, 1e-6);  // median 30, mean 31, best 10
  cell.latency = rounds(8, {3, 1, 2, 9, 4}, 1e-6);             // median 3, mean 3.8, best 1
  cell.theoretical = {1e9, "scripted link"};
  return cell;
}

WorkloadResult scripted_result() {
  const topo::HostStep step{
      .Bps = (1 << 20) / 2e-3, .how = "scripted", .seconds = {4e-3, 2e-3, 3e-3, 5e-3, 6e-3}, .bytes = 1 << 20};
  return topo::make_result(config(), {ring(), fully_connected(), host_staged()}, {matrix_cell()}, {step}, {});
}

std::vector<const Row*> rows_of(const WorkloadResult& r, const std::string& section, const std::string& topology = "") {
  std::vector<const Row*> rows;
  for (const Row& row : r.rows)
    if (row.section == section && (topology.empty() || text_of(row, "topology") == topology)) rows.push_back(&row);
  return rows;
}

const Row& bandwidth_row(const WorkloadResult& r, const std::string& topology, std::uint64_t bytes) {
  for (const Row* row : rows_of(r, "bandwidth", topology))
    if (text_of(*row, "bytes") == std::to_string(bytes)) return *row;
  throw std::runtime_error("no bandwidth row");
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];  // the counts here are odd
}

TEST(TopoRows, BandwidthIsBytesEachDeviceSendsOverTheMedianRoundWithMinAndMaxBeside) {
  const WorkloadResult r = scripted_result();
  ASSERT_TRUE(r.passed());
  for (const TopologyRecord& t : {ring(), fully_connected(), host_staged()}) {
    for (const Rounds& size : t.sizes) {
      const Row& row = bandwidth_row(r, t.name, size.bytes);
      EXPECT_EQ(row.seconds, size.seconds) << t.name << " " << size.bytes;
      const double sent = static_cast<double>(size.bytes) * t.routes;  // every message a device sends in a round
      EXPECT_DOUBLE_EQ(row.bytes_per_sample, sent) << t.name;
      EXPECT_DOUBLE_EQ(row.value(), sent / median_of(size.seconds)) << t.name << " " << size.bytes;
      EXPECT_DOUBLE_EQ(row.stats().min, *std::min_element(size.seconds.begin(), size.seconds.end()));
      EXPECT_DOUBLE_EQ(row.stats().max, *std::max_element(size.seconds.begin(), size.seconds.end()));
      ASSERT_TRUE(row.model.has_value());
      EXPECT_EQ(*row.model, t.theoretical.Bps);
    }
  }
}

TEST(TopoRows, ARingsBandwidthIsAlsoSendrecvsAlgbwAndBusbw) {
  const WorkloadResult r = scripted_result();
  for (const Rounds& size : ring().sizes) {
    const Row& row = bandwidth_row(r, "ring", size.bytes);
    EXPECT_DOUBLE_EQ(std::get<double>(param(row, "algbw GB/s")), to_GBps(size.bytes / median_of(size.seconds)));
    EXPECT_DOUBLE_EQ(std::get<double>(param(row, "busbw GB/s")), to_GBps(size.bytes / median_of(size.seconds)));
  }
  EXPECT_EQ(text_of(bandwidth_row(r, "fully-connected", 4096), "algbw GB/s"), "-");
}

TEST(TopoRows, ThePeakIsTheBestMedianOverSizesAndTheHighlightedSizeItsOwnMedian) {
  const WorkloadResult r = scripted_result();
  const Row& peak = *rows_of(r, "peak", "ring").front();
  EXPECT_DOUBLE_EQ(peak.value(), 65537 / 190e-6);
  EXPECT_EQ(text_of(peak, "peak at bytes"), "65537");
  EXPECT_EQ(text_of(peak, "highlighted bytes"), "4096");
  EXPECT_DOUBLE_EQ(std::get<double>(param(peak, "GB/s there")), to_GBps(4096 / 12e-6));
  EXPECT_EQ(text_of(peak, "% of theoretical there"), "34.1%");  // 4096 B / 12 us against 1 GB/s
  EXPECT_EQ(text_of(peak, "ratio"), "0.17x");                   // 345 MB/s against link's 2 GB/s
  const Row& fc = *rows_of(r, "peak", "fully-connected").front();
  EXPECT_DOUBLE_EQ(fc.value(), 2 * 4096 / 9e-6);
  EXPECT_EQ(text_of(fc, "peak at bytes"), "4096");
}

TEST(TopoRows, TheHostPathsPeakIsSetBesideTheDirectPathsOfTheSamePattern) {
  const WorkloadResult r = scripted_result();
  const Row& staged = *rows_of(r, "peak", "host-staged").front();
  const double staged_peak = 2 * 65537 / 1000e-6, direct_peak = 2 * 4096 / 9e-6;
  EXPECT_DOUBLE_EQ(staged.value(), staged_peak);
  EXPECT_EQ(text_of(staged, "compared with"), "fully-connected by p2p-ce");
  EXPECT_EQ(text_of(staged, "ratio"), "0.14x");
  EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) {
    return n.find(fmt::format("{:.3f}x the direct path", staged_peak / direct_peak)) != std::string::npos;
  }));
}

TEST(TopoRows, TheMatrixTakesTheMedianRoundAndTheHostStepItsBest) {
  const WorkloadResult r = scripted_result();
  const topo::MatrixCell cell = matrix_cell();
  const Row& bandwidth = *rows_of(r, "matrix").front();
  EXPECT_EQ(bandwidth.seconds, cell.bandwidth.seconds);
  EXPECT_DOUBLE_EQ(bandwidth.value(), 65536 / 30e-6);
  const Row& latency = *rows_of(r, "matrix-latency").front();
  EXPECT_EQ(latency.seconds, cell.latency.seconds);
  EXPECT_DOUBLE_EQ(latency.value(), 3e-6);
  // The host step is the host path's ceiling: its best timing.
  EXPECT_DOUBLE_EQ(rows_of(r, "host").front()->value(), (1 << 20) / 2e-3);
}

TEST(TopoRows, ARoundLastsAsLongAsItsSlowestDeviceAndTheRowTakesTheMedianOfThose) {
  emu::EmuBackend backend;
  topo::TopoConfig c = config();
  ExchangeAreas areas(backend, {0, 1, 2}, 0, 3, 1 << 20, 4096);
  // Per round, each device's seconds, every one of them different. The slowest is device 0, 1, 2, 1, 2: 8, 4, 7,
  // 9 and 6 us (median 7, mean 6.8). The fastest device's would be 0.5, 1, 1.5, 2 and 4.5 us (median 1.5), device
  // 0's 8, 2.5, 1.5, 2 and 5. The warm-up's 100 .. 120 us is no round.
  const std::vector<std::vector<double>> script = {{100, 120, 110}, {8, 0.5, 5.5}, {2.5, 4, 1},
                                                   {1.5, 3, 7},     {2, 9, 3.5},   {5, 4.5, 6}};
  ScriptedSeconds moving(transport::open(Kind::p2p_ce, backend, world(), areas.group(), c.transport), in_us(script));
  topo::RoundRunner runner(moving, world(), areas, c);
  const Rounds measured = runner.bandwidth(Pattern::ring, 4096);
  EXPECT_EQ(moving.calls(), script.size());
  EXPECT_EQ(measured.wrong_words, 0u);
  EXPECT_EQ(measured.seconds, in_us({{8, 4, 7, 9, 6}}).front());

  TopologyRecord t = ring();
  t.sizes = {measured};
  const WorkloadResult r = topo::make_result(c, {t}, {}, {}, {});
  EXPECT_DOUBLE_EQ(bandwidth_row(r, "ring", 4096).value(), 4096 / (7 * 1e-6));
}

TEST(TopoRows, ALatencyRoundIsItsSlowestDevicesTimeOverItsExchangesOneWayEach) {
  emu::EmuBackend backend;
  topo::TopoConfig c = config();
  c.latency_exchanges = 20;
  ExchangeAreas areas(backend, {0, 1}, 0, 2, 1 << 20, c.latency_bytes);
  const std::vector<std::vector<double>> script = {{1000, 1100}, {40, 60}, {100, 20}, {30, 50}, {80, 70}, {90, 10}};
  ScriptedSeconds moving(transport::open(Kind::p2p_ce, backend, world(), areas.group(), c.transport), in_us(script));
  topo::RoundRunner runner(moving, world(), areas, c);
  const Rounds measured = runner.latency();
  EXPECT_EQ(measured.wrong_words, 0u);
  // Slowest 60, 100, 50, 80, 90 us over 20 exchanges, each one way (the fastest's 40, 20, 30, 70, 10).
  const std::vector<double> slowest = {60, 100, 50, 80, 90};
  ASSERT_EQ(measured.seconds.size(), slowest.size());
  for (std::size_t k = 0; k < slowest.size(); ++k)
    EXPECT_DOUBLE_EQ(measured.seconds[k], slowest[k] * 1e-6 / 20) << "round " << k;

  topo::MatrixCell cell = matrix_cell();
  cell.latency = measured;
  const WorkloadResult r = topo::make_result(c, {}, {cell}, {}, {});
  EXPECT_DOUBLE_EQ(rows_of(r, "matrix-latency").front()->value(), 80e-6 / 20);
}

}  // namespace
}  // namespace ferry::topo_rows_test
