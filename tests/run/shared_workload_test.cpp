// A workload whose ranks share its work (beff, topo) as the driver runs it in
// one process: its dry run, link's peer figures where it reads them, its run
// and the finish. Under mpirun, tests/mpi/beff_mpi_test.sh and topo_mpi_test.sh.
#include "run/shared_workload.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.hpp"
#include "run/echo_run.hpp"  // tests/run

namespace ferry {
// Its own namespace: a unity build compiles the run tests together, and their helpers share names.
namespace shared_workload_test {
namespace {

using echo_run::on_the_emulator;
using echo_run::one_row;

// A workload of one step on devices 0 and 1, whose run says what it was given.
struct Echo {
  bool ran = false;
  LinkPeers peers;

  SharedWorkload workload(bool reads_link_peers) {
    return {
        .name = "echo",
        .devices = {0, 1},
        .reads_link_peers = reads_link_peers,
        .plan = [] { return Plan{.steps = {{.what = "echo: 1 KiB"}}}; },
        .run =
            [this](const Machine&, const LinkPeers& given, const Progress&) {
              ran = true;
              peers = given;
              return one_row();
            },
    };
  }
};

TEST(SharedWorkload, ADryRunListsLinksPeerStepsThenTheWorkloadsAndRunsNothing) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(true), {"ferry"}, out);
  Echo echo;
  EXPECT_EQ(run_shared_workload(driver, echo.workload(true)), 0);
  EXPECT_FALSE(echo.ran);
  const std::string text = out.str();
  EXPECT_NE(text.find("nothing is measured or written"), std::string::npos) << text;
  const auto link = text.find("\nlink: "), workload = text.find("\necho: 1 steps");
  ASSERT_NE(link, std::string::npos) << "link's peer figures are measured first: " << text;
  ASSERT_NE(workload, std::string::npos) << text;
  EXPECT_LT(link, workload);
  EXPECT_NE(text.find("a transport that cannot run here is found out when it opens"), std::string::npos) << text;
  EXPECT_EQ(text.find("EMULATOR"), std::string::npos) << "a dry run prints no banner: " << text;
}

TEST(SharedWorkload, ADryRunOfAWorkloadThatReadsNoPeerFiguresHasNoLinkSteps) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(true), {"ferry"}, out);
  Echo echo;
  EXPECT_EQ(run_shared_workload(driver, echo.workload(false)), 0);
  EXPECT_EQ(out.str().find("\nlink: "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\ntotal: 1 steps"), std::string::npos) << out.str();
}

TEST(SharedWorkload, LinksPeerFiguresAreMeasuredFirstAndJoinTheResultsBeforeTheWorkloads) {
  const auto json = (std::filesystem::temp_directory_path() / "ferry-shared-workload-test.json").string();
  RunOptions options = on_the_emulator();
  options.outputs.json_path = json;
  std::ostringstream out;
  const Driver driver(options, {"ferry", "run", "echo"}, out);
  Echo echo;
  EXPECT_EQ(run_shared_workload(driver, echo.workload(true)), 0) << out.str();
  EXPECT_TRUE(echo.ran);
  EXPECT_EQ(echo.peers.origin, "measured in this run");
  EXPECT_FALSE(echo.peers.peers.empty());
  EXPECT_NE(out.str().find("echo: PASSED"), std::string::npos) << out.str();
  const auto doc = nlohmann::json::parse(read_file(json));
  ASSERT_EQ(doc["workloads"].size(), 2u);
  EXPECT_EQ(doc["workloads"][0]["name"], "link");
  EXPECT_EQ(doc["workloads"][1]["name"], "echo");
  std::filesystem::remove(json);
}

TEST(SharedWorkload, AWorkloadThatReadsNoPeerFiguresRunsAlone) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(), {"ferry", "run", "echo"}, out);
  Echo echo;
  EXPECT_EQ(run_shared_workload(driver, echo.workload(false)), 0) << out.str();
  EXPECT_TRUE(echo.ran);
  EXPECT_EQ(echo.peers.origin, "");
  EXPECT_TRUE(echo.peers.peers.empty());
  EXPECT_EQ(out.str().find("\nlink: "), std::string::npos) << out.str();
}

}  // namespace
}  // namespace shared_workload_test
}  // namespace ferry
