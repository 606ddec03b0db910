// docs/doctor.md's tables of checks state doctor's thresholds (doctor/thresholds.hpp).
// Each cell that states one is written here from its constant: a table that
// says otherwise fails, and so does a verdict cell with a number this test does
// not hold to a constant.
#include "doctor/thresholds.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

// Its own namespace: a unity build compiles the doctor tests together, and their helpers share names.
namespace ferry::doctor::thresholds_test {
namespace {

// "| a | b |" -> {"a", "b"}
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t at = line.find('|') + 1;
  for (std::size_t bar = line.find('|', at); bar != std::string::npos; at = bar + 1, bar = line.find('|', at)) {
    std::string cell = line.substr(at, bar - at);
    cell.erase(0, cell.find_first_not_of(' '));
    cell.erase(cell.find_last_not_of(' ') + 1);
    cells.push_back(cell);
  }
  return cells;
}

using Row = std::map<std::string, std::string>;  // column -> cell

// The rows of docs/doctor.md's table whose header is `header`, by their first cell.
std::map<std::string, Row> table(const std::vector<std::string>& header) {
  std::ifstream in(std::filesystem::path(FERRY_SOURCE_DIR) / "docs/doctor.md");
  std::map<std::string, Row> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("|", 0) != 0) {
      if (inside) break;
      continue;
    }
    const std::vector<std::string> cells = cells_of(line);
    if (!inside) {
      inside = cells == header;
      continue;
    }
    if (cells.front().rfind("---", 0) == 0) continue;
    EXPECT_EQ(cells.size(), header.size()) << line;
    Row row;
    for (std::size_t c = 0; c < std::min(cells.size(), header.size()); ++c) row[header[c]] = cells[c];
    rows[cells.front()] = row;
  }
  EXPECT_FALSE(rows.empty()) << "no table headed " << fmt::format("{}", fmt::join(header, " | "));
  return rows;
}

// What a cell says of a threshold: the whole cell, or (whole = false) where it begins.
struct Stated {
  std::string row;
  std::string column;
  std::string text;
  bool whole = true;
};

std::string at_least(double share) { return fmt::format(">= {:.0f}%", 100 * share); }
std::string below(double share) { return fmt::format("< {:.0f}%", 100 * share); }
std::string between(double low, double high) { return fmt::format("{:.0f}-{:.0f}%", 100 * low, 100 * high); }
std::string like(int fewest) { return fmt::format("({} or more", fewest); }

bool has_digit(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Each stated cell as the constant writes it, and no other verdict cell with a number in it.
void expect_table_states(const std::map<std::string, Row>& rows, const std::vector<Stated>& stated,
                         const std::vector<std::string>& verdict_columns) {
  for (const Stated& s : stated) {
    const auto row = rows.find(s.row);
    ASSERT_NE(row, rows.end()) << "no row '" << s.row << "' in docs/doctor.md";
    const std::string& cell = row->second.at(s.column);
    if (s.whole) EXPECT_EQ(cell, s.text) << s.row << ", " << s.column << ": doctor/thresholds.hpp says otherwise";
    else
      EXPECT_NE(cell.find(s.text), std::string::npos)
          << s.row << ", " << s.column << ": '" << cell << "' does not say '" << s.text
          << "', as doctor/thresholds.hpp does";
  }
  for (const auto& [name, row] : rows)
    for (const std::string& column : verdict_columns) {
      const bool held = std::any_of(stated.begin(), stated.end(),
                                    [&](const Stated& s) { return s.row == name && s.column == column; });
      if (has_digit(row.at(column)) && !held)
        ADD_FAILURE() << name << ", " << column << " states '" << row.at(column)
                      << "': hold it to its constant in this test";
    }
}

TEST(DoctorThresholds, TheChecksTableStatesTheThresholdsOfTheCode) {
  std::vector<Stated> stated;
  for (const auto& [row, t] :
       {std::pair{"pinned h2d, pinned d2h", pinned_vs_pcie}, std::pair{"pinned both ways", both_ways_vs_pcie},
        std::pair{"device copy", device_copy_vs_hbm}, std::pair{"peer copy", peer_vs_link}}) {
    stated.push_back({row, "OK", at_least(t.warn_below)});
    stated.push_back({row, "WARN", between(t.fail_below, t.warn_below)});
    stated.push_back({row, "FAIL", below(t.fail_below)});
  }
  stated.push_back({"pageable h2d, d2h", "OK", at_least(pageable_vs_pinned)});
  stated.push_back({"pageable h2d, d2h", "WARN", below(pageable_vs_pinned)});
  for (const char* row : {"pinned vs like GPUs", "peer vs like pairs"}) {
    stated.push_back({row, "held against", like(fewest_like), false});
    stated.push_back({row, "OK", at_least(like_median_share)});
    stated.push_back({row, "FAIL", below(like_median_share)});
  }
  stated.push_back({"peer asymmetry", "OK", fmt::format("within {:.0f}%", 100 * (1 - asymmetry_share))});
  stated.push_back({"pcie traffic", "OK", fmt::format("<= {:g} GB/s each way", idle_pcie_traffic_Bps / 1e9)});
  stated.push_back({"nccl vs p2p-ce at 2 MiB", "OK", at_least(nccl_vs_p2p_ce)});
  stated.push_back({"nccl vs p2p-ce at 2 MiB", "WARN", below(nccl_vs_p2p_ce) + ",", false});
  const LatencyLimit& l = latency_vs_reference;
  for (const char* row :
       {"launch + sync", "launch per kernel, graph per kernel", "flag round trip", "copy latency h2d, d2h"}) {
    stated.push_back({row, "OK", fmt::format("<= {:g}x", l.warn_above)});
    stated.push_back({row, "WARN", fmt::format("{:g}-{:g}x", l.warn_above, l.fail_above)});
    stated.push_back({row, "FAIL", fmt::format("> {:g}x", l.fail_above)});
  }
  stated.push_back({"pass time", "held against", fmt::format("`--budget` (default {:g} s)", pass_time_budget_s)});
  expect_table_states(table({"check", "subject", "held against", "OK", "WARN", "FAIL", "why there"}), stated,
                      {"OK", "WARN", "FAIL"});
}

TEST(DoctorThresholds, TheFleetTableStatesTheThresholdsOfTheCode) {
  const std::string figures = "fleet pinned h2d, d2h, both ways, device copy";
  const std::string between_hosts = "pairs between hosts";
  const std::vector<Stated> stated = {
      {figures, "subject", like(fewest_like), false},
      {figures, "OK", fmt::format("every rank {} (one row gives the lowest)", at_least(like_median_share))},
      {between_hosts, "subject", like(fewest_like), false},
      {between_hosts, "OK",
       fmt::format("every pair {} (one row gives the slowest)", at_least(pair_between_hosts_share))},
  };
  expect_table_states(table({"check", "subject", "held against", "OK", "WARN or FAIL", "why there"}), stated,
                      {"OK", "WARN or FAIL"});
}

// The tables promise a WARN band between OK and FAIL on every two-edged check,
// and a band on each side of every one-edged one. Cases made from these
// constants move with them (bands_test's do), so the constants' shape is held
// here: {0.50, 0.50} would leave no WARN band, and a threshold of 0 no FAIL.
TEST(DoctorThresholds, EachBandTheTablesPromiseIsThere) {
  for (const auto& [name, t] :
       {std::pair{"pinned_vs_pcie", pinned_vs_pcie}, std::pair{"both_ways_vs_pcie", both_ways_vs_pcie},
        std::pair{"device_copy_vs_hbm", device_copy_vs_hbm}, std::pair{"peer_vs_link", peer_vs_link}}) {
    EXPECT_LT(t.warn_below, 1) << name << ": nothing would be OK";
    EXPECT_GT(t.warn_below, t.fail_below) << name << ": no WARN band between OK and FAIL";
    EXPECT_GT(t.fail_below, 0) << name << ": nothing would FAIL";
  }
  EXPECT_GT(latency_vs_reference.warn_above, 1) << "a healthy GPU's own latency would WARN";
  EXPECT_GT(latency_vs_reference.fail_above, latency_vs_reference.warn_above) << "no WARN band between OK and FAIL";
  for (const auto& [name, share] :
       {std::pair{"pageable_vs_pinned", pageable_vs_pinned}, std::pair{"like_median_share", like_median_share},
        std::pair{"asymmetry_share", asymmetry_share}, std::pair{"nccl_vs_p2p_ce", nccl_vs_p2p_ce},
        std::pair{"fleet_emulator_share", fleet_emulator_share},
        std::pair{"pair_between_hosts_share", pair_between_hosts_share}}) {
    EXPECT_GT(share, 0) << name << ": nothing would be below it";
    EXPECT_LT(share, 1) << name << ": the model itself would be below it";
  }
  EXPECT_GT(idle_pcie_traffic_Bps, 0) << "an idle GPU's own few MB/s would WARN";
  EXPECT_GT(pass_time_budget_s, 0);
  EXPECT_GE(fewest_like, 3u) << "the median of two is their mean, which a slow one drags down with it";
}

}  // namespace
}  // namespace ferry::doctor::thresholds_test
