// The journal of a run's rows (core/run_journal.hpp): what a run that ends early keeps, where, and what a run
// that completes leaves behind. The signals themselves are tested on the command (tests/run/interrupted_run_test.sh).
#include "core/run_journal.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/temp_folder.hpp"  // tests/core

namespace ferry::run_journal_test {
namespace {

namespace fs = std::filesystem;

using Folder = test::TempFolder;

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

Results started() {
  Results r;
  r.ferry_version = "test";
  r.command_line = {"ferry", "run", "link"};
  return r;
}

// A workload with `n` rows, each a latency of (i + 1) us.
WorkloadResult rows_of(const std::string& name, int n) {
  WorkloadResult w;
  w.workload = name;
  w.sections = {{"s", "S"}};
  for (int i = 0; i < n; ++i) {
    Row row;
    row.section = "s";
    row.params = {{"i", std::int64_t{i}}};
    row.seconds = {1e-6 * (i + 1)};
    row.check = Check::passed;
    w.rows.push_back(row);
  }
  return w;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A run's journal, its results file r.json in a fresh folder, and standard output a string.
class Journal : public ::testing::Test {
 protected:
  void start(const std::string& path) { journal.start(started(), path, out); }

  const Folder folder;
  const std::string results = folder / "r.json";
  std::ostringstream out;
  RunJournal journal;
};

TEST_F(Journal, ARunThatEndsEarlyLeavesItsRowsMarkedIncompleteWithTheReason) {
  start(results);
  const std::size_t link = journal.open_workload(), stream = journal.open_workload();
  journal.count_steps(link, 3, 3);
  journal.keep_rows(link, rows_of("link", 2));
  journal.keep_rows(link, rows_of("link", 4));  // given again whole, with more
  journal.count_steps(stream, 2, 10);
  journal.keep_rows(stream, rows_of("stream", 1));
  const std::string said = journal.keep_unfinished("a driver error", true);
  EXPECT_TRUE(contains(said, "5 rows finished (5 of 13 steps begun), kept in '" + results + ".partial'")) << said;
  EXPECT_FALSE(fs::exists(results)) << "the results file is never written by a run that did not complete";
  const nlohmann::json doc = read_json(sidecar_of(results));
  EXPECT_EQ(doc["incomplete"]["reason"], "a driver error");
  EXPECT_EQ(doc["incomplete"]["rows_done"], 5);
  EXPECT_EQ(doc["incomplete"]["steps_done"], 5);
  EXPECT_EQ(doc["incomplete"]["steps_planned"], 13);
  ASSERT_EQ(doc["workloads"].size(), 2u);
  EXPECT_EQ(doc["workloads"][0]["rows"].size(), 4u);
  EXPECT_EQ(doc["workloads"][1]["rows"].size(), 1u);
  EXPECT_EQ(doc["verification"], "PASSED");
  EXPECT_EQ(journal.keep_unfinished("again", true), "") << "a run ends once";
}

// The thread that writes what ended (a signal's) runs beside the run until the process ends: a step begun after
// the write is past what the sidecar records, so the journal refuses it, and Progress then shows no line for it.
TEST_F(Journal, AStepBegunAfterTheRunWasEndedIsNeitherCountedNorShown) {
  start(results);
  const std::size_t stream = journal.open_workload();
  EXPECT_TRUE(journal.count_steps(stream, 3, 10));
  journal.keep_rows(stream, rows_of("stream", 3));
  ASSERT_NE(journal.keep_unfinished("interrupted by SIGINT", true), "");
  EXPECT_FALSE(journal.count_steps(stream, 4, 10));
  EXPECT_EQ(read_json(sidecar_of(results))["incomplete"]["steps_done"], 3);
}

TEST_F(Journal, AJournalNeverStartedCountsEveryStep) {  // a run without --json
  EXPECT_TRUE(journal.count_steps(journal.open_workload(), 1, 1));
}

TEST_F(Journal, RowsAreOnDiskAsTheyComeNotOnlyAtTheEnd) {
  start(results);
  journal.keep_rows(journal.open_workload(), rows_of("link", 3));
  // The first rows are written at once (a killed process leaves them); the reason says the run was going on.
  const nlohmann::json doc = read_json(sidecar_of(results));
  EXPECT_EQ(doc["incomplete"]["rows_done"], 3);
  EXPECT_TRUE(contains(doc["incomplete"]["reason"].get<std::string>(), "still going")) << doc["incomplete"];
}

TEST_F(Journal, ACompleteRunRemovesTheSidecarEvenOneAnEarlierRunLeft) {
  std::ofstream(sidecar_of(results)) << "{}";
  start(results);
  journal.keep_rows(journal.open_workload(), rows_of("link", 1));
  journal.complete();
  EXPECT_FALSE(fs::exists(sidecar_of(results)));
  EXPECT_EQ(journal.keep_unfinished("after the end", true), "");
  EXPECT_FALSE(fs::exists(sidecar_of(results)));
}

TEST_F(Journal, BadInputWithNoRowFinishedLeavesNoFile) {
  start(results);
  journal.open_workload();
  EXPECT_EQ(journal.keep_unfinished("--sizes: malformed", false), "");
  EXPECT_FALSE(fs::exists(sidecar_of(results)));
}

TEST_F(Journal, StandardOutputGetsTheIncompleteResultsAtTheEndAndNoSidecar) {
  start("-");
  journal.keep_rows(journal.open_workload(), rows_of("link", 2));
  EXPECT_EQ(out.str(), "") << "a pipe holds one document";
  const std::string said = journal.keep_unfinished("interrupted by SIGINT", true);
  EXPECT_TRUE(contains(said, "kept in standard output")) << said;
  EXPECT_EQ(nlohmann::json::parse(out.str())["incomplete"]["rows_done"], 2);
  EXPECT_FALSE(fs::exists("-.partial"));
}

TEST_F(Journal, ASidecarNameThatIsNotAFileIsNeverReplaced) {
  ASSERT_EQ(::mkfifo(sidecar_of(results).c_str(), 0600), 0) << std::strerror(errno);
  start(results);
  journal.keep_rows(journal.open_workload(), rows_of("link", 2));
  const std::string said = journal.keep_unfinished("interrupted by SIGTERM", true);
  struct stat s {};
  ASSERT_EQ(::lstat(sidecar_of(results).c_str(), &s), 0);
  EXPECT_TRUE(S_ISFIFO(s.st_mode)) << "the FIFO was replaced";
  // Nor is the results file written: the rows go to the temporary folder, and the message says where.
  EXPECT_FALSE(fs::exists(results));
  const std::string marker = "kept in '";
  const auto at = said.find(marker);
  ASSERT_NE(at, std::string::npos) << said;
  const std::string kept = said.substr(at + marker.size(), said.find('\'', at + marker.size()) - at - marker.size());
  EXPECT_TRUE(contains(said, "is not a file, and is left as it is")) << said;
  EXPECT_EQ(read_json(kept)["incomplete"]["rows_done"], 2);
  fs::remove(kept);
}

TEST_F(Journal, RowsKeptOnOneThreadWhileAnotherEndsTheRunAreWrittenWhole) {
  start(results);
  const std::size_t link = journal.open_workload();
  std::thread measuring([&] {
    for (int n = 1; n <= 200; ++n) journal.keep_rows(link, rows_of("link", n));
  });
  std::string said;
  std::thread signalled([&] { said = journal.keep_unfinished("interrupted by SIGINT", true); });
  measuring.join();
  signalled.join();
  const nlohmann::json doc = read_json(sidecar_of(results));
  EXPECT_EQ(doc["incomplete"]["reason"], "interrupted by SIGINT") << "rows kept later do not replace the end";
  EXPECT_EQ(doc["incomplete"]["rows_done"], doc["workloads"].empty() ? 0 : doc["workloads"][0]["rows"].size());
}

}  // namespace
}  // namespace ferry::run_journal_test
