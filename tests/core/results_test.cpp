#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/stats.hpp"
#include "core/table.hpp"

namespace ferry {
namespace {

Results sample_results(Check check) {
  Row rate;
  rate.section = "bandwidth";
  rate.params = {{"memory", "pinned"}, {"bytes", std::int64_t{1} << 20}};
  rate.metric = Metric::rate;
  rate.seconds = {2e-5, 1e-5, 4e-5};
  rate.bytes_per_sample = 1e6;
  rate.model = 2e11;
  rate.model_basis = "PCIe Gen5 x16";
  rate.check = check;

  Row latency;
  latency.section = "flag";
  latency.params = {{"round trips", std::int64_t{3}}};
  latency.seconds = {3e-6, 2e-6, 5e-6};

  WorkloadResult w;
  w.workload = "link";
  w.sections = {{"bandwidth", "Bandwidth"}, {"flag", "Flag"}};
  w.rows = {rate, latency};
  Results r;
  r.ferry_version = "0.1.0";
  r.command_line = {"ferry", "run", "link"};
  r.machine.backend = "emu";
  r.workloads = {w};
  return r;
}

TEST(Results, RateIsBytesOverTheMedianTime) {
  const Results results = sample_results(Check::passed);
  const Row& rate = results.workloads[0].rows[0];
  EXPECT_DOUBLE_EQ(rate.value(), 1e6 / 2e-5);
  EXPECT_DOUBLE_EQ(*rate.efficiency(), 5e10 / 2e11);
}

TEST(Results, JsonCarriesSchemaSamplesStatsModelAndVerification) {
  const auto doc = nlohmann::json::parse(results_to_json(sample_results(Check::passed)));
  EXPECT_EQ(doc["schema"], "ferry.results/1");
  EXPECT_EQ(doc["verification"], "PASSED");
  EXPECT_EQ(doc["machine"]["timings"], "emulated: CPU timings, not GPU timings");
  const auto& row = doc["workloads"][0]["rows"][0];
  EXPECT_EQ(row["samples_s"].size(), 3u);
  EXPECT_DOUBLE_EQ(row["stats_s"]["median"], 2e-5);
  EXPECT_DOUBLE_EQ(row["value"], 50.0);  // GB/s
  EXPECT_DOUBLE_EQ(row["model"], 200.0);
  EXPECT_EQ(row["unit"], "GB/s");
  EXPECT_EQ(row["params"]["bytes"], 1 << 20);
  EXPECT_EQ(doc["workloads"][0]["rows"][1]["unit"], "us");
}

TEST(Results, AFailedRowFailsTheWorkloadAndTheRun) {
  const Results r = sample_results(Check::failed);
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(nlohmann::json::parse(results_to_json(r))["verification"], "FAILED");
  EXPECT_NE(render_workload(r.workloads[0]).find("link: FAILED"), std::string::npos);
}

TEST(Results, CsvHasOneLinePerRowAndTheUnionOfParameters) {
  const std::string csv = results_to_csv(sample_results(Check::passed));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  EXPECT_EQ(csv.rfind("workload,section,memory,bytes,round trips,metric", 0), 0u) << csv;
}

// 1..198 us, 500 us and 1000 us in a scrambled order: min, median, mean, p99 and max all differ, and
// none is the first or the last sample taken.
std::vector<double> asymmetric_samples() {
  std::vector<double> samples;
  for (int i = 0; i < 200; ++i) {
    const int k = (i * 73 + 11) % 200;
    samples.push_back(1e-6 * (k < 198 ? k + 1.0 : k == 198 ? 500.0 : 1000.0));
  }
  return samples;
}

Results one_latency_row(const std::vector<double>& samples) {
  Row row;
  row.section = "flag";
  row.params = {{"what", "echo"}};
  row.seconds = samples;
  WorkloadResult w;
  w.workload = "link";
  w.sections = {{"flag", "Flag"}};
  w.rows = {row};
  Results r;
  r.workloads = {w};
  return r;
}

// Within the significant digits the CSV prints: 9 for the statistics, 6 for the value. The samples'
// statistics differ from each other by far more.
void expect_printed(double printed, double expected, int digits, const std::string& column) {
  EXPECT_NEAR(printed, expected, std::pow(10.0, 1 - digits) * std::abs(expected)) << column;
}

TEST(Results, EachCsvStatisticsColumnHoldsItsOwnStatisticOfTheSamples) {
  const std::vector<double> samples = asymmetric_samples();
  const Stats s = summarize(samples);
  ASSERT_EQ((std::set<double>{s.min, s.median, s.mean, s.p99, s.max}.size()), 5u) << "five different figures";

  const std::string csv = results_to_csv(one_latency_row(samples));
  const auto fields = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
      if (c == ',') out.emplace_back();
      else out.back().push_back(c);
    }
    return out;
  };
  const std::size_t end_of_header = csv.find('\n');
  const std::vector<std::string> header = fields(csv.substr(0, end_of_header));
  const std::vector<std::string> row =
      fields(csv.substr(end_of_header + 1, csv.find('\n', end_of_header + 1) - end_of_header - 1));
  ASSERT_EQ(header.size(), row.size()) << csv;
  const auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << name << " in " << csv;
    return at == header.end() ? std::nan("") : std::stod(row[static_cast<std::size_t>(at - header.begin())]);
  };
  expect_printed(column("min_s"), s.min, 9, "min_s");
  expect_printed(column("median_s"), s.median, 9, "median_s");
  expect_printed(column("mean_s"), s.mean, 9, "mean_s");
  expect_printed(column("p99_s"), s.p99, 9, "p99_s");
  expect_printed(column("max_s"), s.max, 9, "max_s");
  expect_printed(column("value"), s.median * 1e6, 6, "value: a latency's median, in us");
  EXPECT_EQ(column("samples"), 200);
}

TEST(Results, EachJsonStatisticHoldsItsOwnStatisticOfTheSamples) {
  const std::vector<double> samples = asymmetric_samples();
  const Stats s = summarize(samples);
  const auto doc = nlohmann::json::parse(results_to_json(one_latency_row(samples)));
  const auto& row = doc["workloads"][0]["rows"][0];
  EXPECT_DOUBLE_EQ(row["stats_s"]["min"], s.min);
  EXPECT_DOUBLE_EQ(row["stats_s"]["median"], s.median);
  EXPECT_DOUBLE_EQ(row["stats_s"]["mean"], s.mean);
  EXPECT_DOUBLE_EQ(row["stats_s"]["p99"], s.p99);
  EXPECT_DOUBLE_EQ(row["stats_s"]["max"], s.max);
  EXPECT_DOUBLE_EQ(row["value"], s.median * 1e6);
}

TEST(Results, TableShowsSizesForPeopleAndTheShareOfTheModel) {
  const std::string table = render_workload(sample_results(Check::passed).workloads[0]);
  EXPECT_NE(table.find("1 MiB"), std::string::npos) << table;
  EXPECT_NE(table.find("25.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("PCIe Gen5 x16"), std::string::npos) << table;
}

TEST(Results, ManySamplesAreKeptAsTheirStatisticsOverEveryOne) {
  std::vector<double> samples(kept_samples_limit + 1);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<double>(i + 1);
  Row row;
  row.set_samples(samples);
  EXPECT_TRUE(row.seconds.empty());
  EXPECT_EQ(row.sample_count(), samples.size());
  EXPECT_DOUBLE_EQ(row.stats().max, static_cast<double>(samples.size()));
  EXPECT_DOUBLE_EQ(row.stats().median, summarize(samples).median);

  Row few;
  few.set_samples({1, 2, 3});
  EXPECT_EQ(few.seconds.size(), 3u);
  EXPECT_FALSE(few.summary.has_value());
}

TEST(AtomicFile, WritesTheWholeFileAndLeavesNoTemporary) {
  const auto dir = std::filesystem::temp_directory_path() / "ferry_atomic_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.json").string();
  write_file_atomically(path, "{\"a\": 1}\n");
  EXPECT_EQ(read_file(path), "{\"a\": 1}\n");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) EXPECT_EQ(entry.path().filename(), "out.json");
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, AnUnwritablePathIsAClearErrorAndNoFile) {
  try {
    write_file_atomically("/nonexistent-dir/out.json", "x");
    FAIL() << "wrote into a folder that does not exist";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/out.json"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir/out.json"));
}

}  // namespace
}  // namespace ferry
