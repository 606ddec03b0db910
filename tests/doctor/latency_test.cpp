// doctor's latency checks: a GPU's launch, graph, flag and small-copy latencies
// against a healthy GPU of its model whose run ships in docs/results; and the
// shipped table of those references held to the runs it was copied from.
#include "doctor/judge/latency.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "backend/emu/emu_backend.hpp"
#include "doctor/faults.hpp"
#include "doctor/judge/diagnose.hpp"
#include "doctor/measure/pass.hpp"
#include "doctor/test_findings.hpp"

namespace ferry::doctor {
// Its own namespace: a unity build compiles the doctor tests together, and their helpers share names.
namespace latency_test {
namespace {

const LatencyReference& reference(std::string_view gpu) {
  const LatencyReference* r = latency_reference(gpu);
  if (!r) throw std::runtime_error("no reference for " + std::string(gpu));
  return *r;
}

// `gpus` GPUs of a model, each latency `times` its reference.
Inputs latencies_of(std::string_view gpu, int gpus, double times = 1.0) {
  Inputs in;
  in.figures.gpu_timings = true;
  for (int d = 0; d < gpus; ++d) {
    in.devices.push_back(d);
    in.machine.gpus.push_back({.index = d, .name = std::string(gpu), .other_processes = 0});
    model::DeviceProfile p{.device = d, .name = std::string(gpu)};
    if (const LatencyReference* r = latency_reference(gpu))
      for (const LatencyFigure& figure : latency_figures()) p.*figure.measured = times * (r->*figure.reference);
    in.figures.devices.push_back(p);
  }
  return in;
}

using test_findings::find;
using test_findings::not_ok;

TEST(DoctorLatency, AHealthyH100IsOkOnEveryLatencyEvenAThirdSlowerThanItsReference) {
  const std::vector<Finding> findings = judge_latencies(latencies_of("NVIDIA H100 80GB HBM3", 1, 1.3));
  ASSERT_EQ(findings.size(), latency_figures().size());
  for (const Finding& f : findings) EXPECT_EQ(f.verdict, Verdict::ok) << f.check << ": " << f.measured;
  const Finding launch = find(findings, "launch + sync", "GPU 0");
  EXPECT_EQ(launch.measured, "13.55 us");
  EXPECT_EQ(launch.expected, "<= 1.5x 10.42 us");
  EXPECT_EQ(launch.basis, "the H100 of docs/results/link-h100.txt (one H100 on a 16-core Xeon VM, driver 580.159.04)");
  EXPECT_DOUBLE_EQ(*launch.model, 10.42e-6);
}

TEST(DoctorLatency, ALaunchTwiceTheReferenceWarnsWithItsArithmeticAndTheHostsCauses) {
  Inputs in = latencies_of("NVIDIA H100 80GB HBM3", 2);
  in.figures.devices[1].launch_and_sync_s = 2.0 * 10.42e-6;
  const std::vector<Finding> findings = judge_latencies(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"launch + sync GPU 1"});
  const Finding launch = find(findings, "launch + sync", "GPU 1");
  EXPECT_EQ(launch.verdict, Verdict::warn);
  EXPECT_EQ(launch.cause.substr(0, launch.cause.find(';')),
            "launch + sync 20.84 us against 10.42 us on the H100 of docs/results/link-h100.txt: 2.0x");
  EXPECT_NE(launch.cause.find("a CPU held at a low clock"), std::string::npos) << launch.cause;
  EXPECT_NE(launch.action.find("frequency governor"), std::string::npos) << launch.action;
  EXPECT_NE(launch.action.find("persistence mode"), std::string::npos) << launch.action;
  EXPECT_EQ(launch.action.find("pcie_aspm"), std::string::npos) << "a launch crosses no link: " << launch.action;
}

TEST(DoctorLatency, AFlagRoundTripPastThreeTimesItsReferenceFailsAndNamesPciePowerSaving) {
  Inputs in = latencies_of("NVIDIA H200", 2);
  in.figures.devices[0].flag_round_trip_s = 10e-6;  // 3.05x 3.274 us
  const Finding flag = find(judge_latencies(in), "flag round trip", "GPU 0");
  EXPECT_EQ(flag.verdict, Verdict::fail);
  EXPECT_EQ(flag.cause.substr(0, flag.cause.find(';')),
            "flag round trip 10.00 us against 3.27 us on the H200 of docs/results/link-h200x2.txt: 3.1x");
  EXPECT_NE(flag.action.find("pcie_aspm"), std::string::npos) << flag.action;
}

TEST(DoctorLatency, ASlowLatencyOnAGpuSharedWithAnotherProcessIsBlamedOnIt) {
  Inputs in = latencies_of("NVIDIA H200", 1);
  in.machine.gpus[0].other_processes = 1;
  in.figures.devices[0].graph_per_kernel_s = 1.2e-6;  // 1.74x 0.689 us
  const Finding graph = find(judge_latencies(in), "graph per kernel", "GPU 0");
  EXPECT_EQ(graph.verdict, Verdict::warn);
  EXPECT_NE(graph.cause.find("another process had work on GPU 0"), std::string::npos) << graph.cause;
}

TEST(DoctorLatency, AGpuWithoutAShippedReferenceIsNotJudgedAndNamed) {
  const std::vector<Finding> findings = judge_latencies(latencies_of("NVIDIA A100-SXM4-80GB", 1));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].check, "latencies");
  EXPECT_EQ(findings[0].verdict, Verdict::not_judged);
  EXPECT_EQ(findings[0].basis,
            "no reference for NVIDIA A100-SXM4-80GB ships with ferry (docs/results has the NVIDIA H100 80GB HBM3's "
            "and the NVIDIA H200's)");
}

TEST(DoctorLatency, TheEmulatorsTimingsAreNotJudged) {
  Inputs in = latencies_of("NVIDIA H100 80GB HBM3", 2, 5.0);
  in.figures.gpu_timings = false;
  const std::vector<Finding> findings = judge_latencies(in);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].verdict, Verdict::not_judged);
  EXPECT_NE(findings[0].basis.find("the emulator's timings are CPU timings"), std::string::npos);
}

TEST(DoctorLatency, AFigureThePassDidNotMeasureIsNotJudged) {
  Inputs in = latencies_of("NVIDIA H100 80GB HBM3", 1);
  in.figures.devices[0].graph_per_kernel_s = 0;  // a backend without graphs
  const Finding graph = find(judge_latencies(in), "graph per kernel", "GPU 0");
  EXPECT_EQ(graph.verdict, Verdict::not_judged);
  EXPECT_NE(graph.basis.find("did not measure"), std::string::npos);
}

// The doctor pass of docs/results/doctor-h200x2.json.gz (64 MiB and 256 MiB,
// 200 kernels a dispatch sample, 2000 flag round trips): a healthy machine.
TEST(DoctorLatency, TheShippedHealthyDoctorPassOnTwoH200IsOk) {
  Inputs in = latencies_of("NVIDIA H200", 2);
  const double us = 1e-6;
  const double pass[2][6] = {{9.9015 * us, 4.43999 * us, 0.710435 * us, 2.376 * us, 6.196 * us, 7.8235 * us},
                             {9.0955 * us, 4.02021 * us, 0.73821 * us, 1.446 * us, 6.3385 * us, 8.372 * us}};
  for (int d = 0; d < 2; ++d)
    for (std::size_t i = 0; i < latency_figures().size(); ++i)
      in.figures.devices[d].*latency_figures()[i].measured = pass[d][i];
  const std::vector<Finding> findings = judge_latencies(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{});
  EXPECT_EQ(findings.size(), 2 * latency_figures().size());
}

TEST(DoctorLatency, DiagnoseJudgesTheLatenciesOnAGpu) {
  Inputs in = latencies_of("NVIDIA H100 80GB HBM3", 1);
  in.figures.devices[0].launch_per_kernel_s = 4 * 4.479e-6;
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(find(findings, "launch per kernel", "GPU 0").verdict, Verdict::fail);
  EXPECT_EQ(find(findings, "copy latency d2h", "GPU 0").verdict, Verdict::ok);
}

TEST(DoctorLatency, TheSlowLaunchHookWarnsOnItsGpuAloneOnTheEmulator) {
  Inputs in;
  for (int d = 0; d < 2; ++d) {
    in.devices.push_back(d);
    in.machine.gpus.push_back({.index = d, .name = "ferry CPU emulator"});
    in.figures.devices.push_back({.device = d, .name = "ferry CPU emulator", .h2d_Bps = 3e9, .d2h_Bps = 1e9});
  }
  in.figures.peers.push_back({.from = 0, .to = 1, .copy_Bps = 4e9});
  in.figures.peers.push_back({.from = 1, .to = 0, .copy_Bps = 1e9});  // emulator timings: lopsided
  provoke_slow_launch(in, 1);
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"launch + sync GPU 1"});
  EXPECT_EQ(find(findings, "launch + sync", "GPU 1").verdict, Verdict::warn);
  EXPECT_EQ(find(findings, "launch + sync", "GPU 0").verdict, Verdict::ok);
}

// The hook on what doctor's pass measured on the emulator: its CPU-timed rates
// dropped, so that nothing but the provoked launch is named.
TEST(DoctorLatency, TheSlowLaunchHookOnAnEmulatorPassNamesTheLaunchAlone) {
  emu::EmuBackend backend;
  const Machine machine = backend.describe_machine();
  const link::LinkConfig config = pass_config(backend.capabilities(), {0, 1});
  Inputs in{.machine = machine, .devices = {0, 1}};
  in.figures = link::run(backend, machine, config, Progress("link", false)).profile;
  ASSERT_EQ(judge_latencies(in).front().verdict, Verdict::not_judged) << "the emulator's own latencies";
  provoke_slow_launch(in, 1);
  const std::vector<Finding> findings = diagnose(in);
  EXPECT_EQ(not_ok(findings), std::vector<std::string>{"launch + sync GPU 1"});
  EXPECT_EQ(find(findings, "launch + sync", "GPU 1").cause.substr(0, 87),
            "launch + sync 20.84 us against 10.42 us on the H100 of docs/results/link-h100.txt: 2.0x");
}

// The tables of a ferry run's text output: each titled by the line above its
// header, each row's cells by the columns its dashes line spans.
struct TextTable {
  std::string title;
  std::vector<std::map<std::string, std::string>> rows;
};

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(' ') - first + 1));
}

struct TextRun {
  std::map<int, std::string> gpus;  // "  device 0: NVIDIA H200, 140 GiB, ..."
  std::vector<TextTable> tables;
};

TextRun read_text_run(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  TextRun run;
  for (const std::string& line : lines) {
    if (line.rfind("  device ", 0) != 0 || line.find(": ") == std::string::npos) continue;
    const std::size_t colon = line.find(": ");
    run.gpus[std::stoi(line.substr(9, colon - 9))] = line.substr(colon + 2, line.find(", ", colon) - colon - 2);
  }
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const std::string& dashes = lines[i];
    if (dashes.rfind("  --", 0) != 0) continue;
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // [begin, end) of each column
    for (std::size_t at = dashes.find('-'); at != std::string::npos; at = dashes.find('-', at)) {
      const std::size_t end = std::min(dashes.find(' ', at), dashes.size());
      spans.emplace_back(at, end);
      at = end;
    }
    auto cells = [&](const std::string& line) {
      std::vector<std::string> out;
      for (const auto& [begin, end] : spans)
        out.push_back(begin < line.size() ? trimmed(line.substr(begin, end - begin)) : "");
      return out;
    };
    TextTable table{.title = lines[i - 2]};
    const std::vector<std::string> header = cells(lines[i - 1]);
    for (std::size_t r = i + 1; r < lines.size() && lines[r].rfind("  ", 0) == 0; ++r) {
      const std::vector<std::string> row = cells(lines[r]);
      std::map<std::string, std::string> named;
      for (std::size_t c = 0; c < header.size(); ++c) named[header[c]] = row[c];
      table.rows.push_back(std::move(named));
    }
    run.tables.push_back(std::move(table));
  }
  return run;
}

// Where link's text output holds each figure: its table's title and the row's cells.
struct Where {
  std::string title_start;
  std::map<std::string, std::string> cells;
};
const std::map<std::string, Where>& where_each_figure_is() {
  static const std::map<std::string, Where> all = {
      {"launch + sync", {"Kernel dispatch", {{"what", "launch + sync, one kernel"}}}},
      {"launch per kernel", {"Kernel dispatch", {{"what", "stream launch, per kernel"}}}},
      {"graph per kernel", {"Kernel dispatch", {{"what", "graph replay, per kernel"}}}},
      // A run before the release-fence echo has one flag row a device, without "what".
      {"flag round trip", {"Persistent kernel", {{"what", "doorbell -> echo seen by the host"}}}},
      {"copy latency h2d",
       {"Small-copy latency", {{"clock", "host: copy + sync"}, {"direction", "h2d"}, {"bytes", "4 B"}}}},
      {"copy latency d2h",
       {"Small-copy latency", {{"clock", "host: copy + sync"}, {"direction", "d2h"}, {"bytes", "4 B"}}}},
  };
  return all;
}

TEST(DoctorLatency, EachShippedReferenceIsTheMedianItsRunPrinted) {
  ASSERT_FALSE(latency_references().empty());
  for (const LatencyReference& ref : latency_references()) {
    SCOPED_TRACE(std::string(ref.source));
    const TextRun run = read_text_run(std::filesystem::path(FERRY_SOURCE_DIR) / ref.source);
    std::vector<std::string> devices;  // of the reference's model
    for (const auto& [index, name] : run.gpus)
      if (name == ref.gpu) devices.push_back(std::to_string(index));
    ASSERT_FALSE(devices.empty()) << "no GPU of the run is a " << ref.gpu;
    const std::string count = devices.size() == 1 ? "one " : fmt::format("{} x ", devices.size());
    EXPECT_EQ(std::string(ref.machine).rfind(count + std::string(ref.short_name), 0), 0u)
        << ref.machine << " says not what ran: " << count << ref.short_name;
    for (const LatencyFigure& figure : latency_figures()) {
      const Where& where = where_each_figure_is().at(std::string(figure.check));
      std::optional<std::string> slowest;  // the slowest device's median, as printed
      for (const TextTable& table : run.tables) {
        if (table.title.rfind(where.title_start, 0) != 0) continue;
        for (const auto& row : table.rows) {
          if (std::find(devices.begin(), devices.end(), row.at("device")) == devices.end()) continue;
          const bool matches = std::all_of(where.cells.begin(), where.cells.end(), [&](const auto& cell) {
            const auto it = row.find(cell.first);
            return it == row.end() ? cell.first == "what" : it->second == cell.second;
          });
          if (matches && (!slowest || std::stod(row.at("median us")) > std::stod(*slowest)))
            slowest = row.at("median us");
        }
      }
      ASSERT_TRUE(slowest) << "no " << figure.check << " row in " << ref.source;
      const std::size_t point = slowest->find('.');
      const int decimals = point == std::string::npos ? 0 : static_cast<int>(slowest->size() - point - 1);
      EXPECT_EQ(fmt::format("{:.{}f}", ref.*figure.reference * 1e6, decimals), *slowest)
          << figure.check << " of the " << ref.short_name << " in src/doctor/references.cpp";
    }
  }
}

}  // namespace
}  // namespace latency_test
}  // namespace ferry::doctor
