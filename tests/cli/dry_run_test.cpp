// `ferry run WORKLOAD --dry-run`: the steps and a time estimate, nothing measured or written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "cli/run_ferry.hpp"

namespace ferry {
namespace {

// "stream: 36 steps, about 1.20 s" -> 36, for the named part.
int steps_of(const std::string& out, const std::string& part) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("\n" + part + ": (\\d+) steps, about "))) return -1;
  return std::stoi(m[1]);
}

int listed_lines(const std::string& out) {
  int n = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    n += std::regex_match(line, std::regex(R"(\s+\d+\s+\S+( s)?\s+\S.*)")) ? 1 : 0;
  return n;
}

TEST(DryRun, EveryWorkloadListsItsStepsWithATotalAndMeasuresNothing) {
  const auto json = (std::filesystem::temp_directory_path() / "ferry-dry-run.json").string();
  std::filesystem::remove(json);
  for (const std::string workload : {"link", "stream", "overlap", "dispatch", "beff", "topo"}) {
    const Outcome o = ferry({"run", workload, "--backend", "emu", "--dry-run", "--json", json});
    EXPECT_EQ(o.code, 0) << workload << ": " << o.err;
    EXPECT_NE(o.out.find("nothing is measured or written"), std::string::npos) << o.out;
    EXPECT_GT(steps_of(o.out, workload), 0) << o.out;
    std::smatch total;
    ASSERT_TRUE(std::regex_search(o.out, total, std::regex(R"(\ntotal: (\d+) steps, about )"))) << o.out;
    EXPECT_EQ(std::stoi(total[1]), listed_lines(o.out)) << "one line per step: " << o.out;
    EXPECT_NE(o.out.find("pace: emulator"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("PASSED"), std::string::npos) << "nothing ran: " << o.out;
    EXPECT_FALSE(std::filesystem::exists(json)) << workload << " wrote its results file";
  }
}

TEST(DryRun, ModelCeilingsFromLinkAreStepsOfTheirOwnUnlessAProfileGivesThem) {
  const Outcome measured = ferry({"run", "stream", "--backend", "emu", "--dry-run", "--design", "chunked"});
  EXPECT_EQ(measured.code, 0) << measured.err;
  EXPECT_GT(steps_of(measured.out, "link"), 0) << measured.out;

  const auto profile = (std::filesystem::temp_directory_path() / "ferry-dry-run-profile.json").string();
  ASSERT_EQ(ferry({"probe", "--backend", "emu", "--quick", "--quiet", "--round-trips", "200", "-o", profile}).code, 0);
  const Outcome given =
      ferry({"run", "stream", "--backend", "emu", "--dry-run", "--design", "chunked", "--profile", profile});
  EXPECT_EQ(given.code, 0) << given.err;
  EXPECT_EQ(steps_of(given.out, "link"), -1) << given.out;
  EXPECT_EQ(steps_of(given.out, "stream"), steps_of(measured.out, "stream"));
  EXPECT_NE(given.out.find("pace: the machine profile's rates for device 0"), std::string::npos) << given.out;
  std::filesystem::remove(profile);
}

TEST(DryRun, TheStepsFollowTheOptions) {
  auto stream_steps = [](const std::string& chunks, const std::string& depths) {
    return steps_of(ferry({"run", "stream", "--backend", "emu", "--dry-run", "--design", "chunked,zerocopy", "--chunks",
                           chunks, "--depth", depths})
                        .out,
                    "stream");
  };
  EXPECT_EQ(stream_steps("64K", "1"), 1 + 2);  // the compute ceiling, then a point per design
  EXPECT_EQ(stream_steps("16K:64K:x2", "1,4"), 1 + 2 * 3 * 2);
  const Outcome two = ferry({"run", "link", "--backend", "emu", "--quick", "--dry-run", "--devices", "0,1"});
  const Outcome one = ferry({"run", "link", "--backend", "emu", "--quick", "--dry-run", "--devices", "0"});
  EXPECT_GT(steps_of(two.out, "link"), 2 * steps_of(one.out, "link")) << "a second device and its peer steps";
  EXPECT_NE(two.out.find("peer 0 -> 1"), std::string::npos) << two.out;
}

TEST(DryRun, BadInputIsRefusedAsARunRefusesIt) {
  for (const std::vector<std::string> args :
       {std::vector<std::string>{"run", "link", "--dry-run", "--backend", "emu", "--sizes", "12QB"},
        {"run", "stream", "--dry-run", "--backend", "emu", "--device", "9"},
        {"run", "overlap", "--dry-run", "--backend", "emu", "--size", "1T"}}) {
    const Outcome o = ferry(args);
    EXPECT_EQ(o.code, 2) << fmt::format("{}", fmt::join(args, " ")) << ": " << o.out;
    EXPECT_EQ(o.out.find("total:"), std::string::npos);
  }
}

}  // namespace
}  // namespace ferry
