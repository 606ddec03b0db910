// A workload is declared once (src/cli/workloads/NAME.cpp) and measured in its
// folder src/bench/NAME/: one without the other fails here, and so does a
// declaration whose commands do not answer.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_ferry.hpp"  // tests/cli
#include "cli/workload.hpp"

namespace ferry {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::set<std::string> bench_folders() {
  std::set<std::string> folders;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(FERRY_SOURCE_DIR) / "src" / "bench"))
    if (entry.is_directory() && entry.path().filename() != "common") folders.insert(entry.path().filename().string());
  return folders;
}

TEST(Workloads, ListNamesPrintsOneNameALineAndNothingElse) {
  const Outcome o = ferry({"list", "--names"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  std::vector<std::string> declared;
  for (const Workload& w : workloads()) declared.push_back(w.name);
  EXPECT_EQ(lines_of(o.out), declared);
  EXPECT_EQ(o.out.back(), '\n');
}

TEST(Workloads, EachDeclarationHasItsBenchFolderAndEachBenchFolderItsDeclaration) {
  const std::vector<std::string> listed = lines_of(ferry({"list", "--names"}).out);
  const std::set<std::string> declared(listed.begin(), listed.end());
  const std::set<std::string> folders = bench_folders();
  ASSERT_FALSE(folders.empty()) << "no workload folders under " << FERRY_SOURCE_DIR << "/src/bench";
  for (const std::string& name : declared)
    EXPECT_TRUE(folders.count(name)) << name << " is declared (src/cli/workloads/" << name
                                     << ".cpp) but has no folder src/bench/" << name << "/";
  for (const std::string& name : folders)
    EXPECT_TRUE(declared.count(name)) << "src/bench/" << name << "/ has no declaration: add src/cli/workloads/" << name
                                      << ".cpp (docs/architecture.md, \"Adding a workload\")";
}

TEST(Workloads, EachDeclaredWorkloadsRunCommandAnswersWithItsSummary) {
  for (const Workload& w : workloads()) {
    EXPECT_FALSE(w.summary.empty()) << w.name;
    EXPECT_FALSE(w.measures.empty()) << w.name;
    const Outcome o = ferry({"run", w.name, "--help"});
    EXPECT_EQ(o.code, 0) << w.name << ": " << o.err;
    EXPECT_NE(o.out.find("Usage: ferry run " + w.name), std::string::npos) << o.out;
    EXPECT_EQ(o.out.rfind(w.summary, 0), 0u) << w.name << "'s help does not open with its summary:\n" << o.out;
    EXPECT_NE(o.out.find("--backend"), std::string::npos) << w.name << " takes no run options:\n" << o.out;
  }
}

TEST(Workloads, ListShowsEachDeclarationsSummaryMeasuresAndListings) {
  const Outcome o = ferry({"list"});
  ASSERT_EQ(o.code, 0) << o.err;
  for (const Workload& w : workloads()) {
    EXPECT_NE(o.out.find(w.name + std::string(10 - w.name.size() + 1, ' ') + w.summary), std::string::npos) << w.name;
    EXPECT_NE(o.out.find("measures: " + w.measures), std::string::npos) << w.name;
    for (const Listing& list : w.lists) EXPECT_NE(o.out.find(list.what + ": "), std::string::npos) << w.name;
  }
}

}  // namespace
}  // namespace ferry
