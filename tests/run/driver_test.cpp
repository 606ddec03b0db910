// The driver of every `ferry run` in one process, where this process is rank 0
// and speaks: the backend before anything is printed, the banner, a dry run,
// and the finish whose exit code every rank returns. Under mpirun the same
// steps leave the other ranks silent (tests/mpi/*.sh).
#include "run/driver.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "run/echo_run.hpp"  // tests/run

namespace ferry {
// Its own namespace: a unity build compiles the run tests together, and their helpers share names.
namespace driver_test {
namespace {

using echo_run::on_the_emulator;
using echo_run::one_row;

TEST(Driver, InOneProcessThisProcessIsRankZeroAlone) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(), {"ferry", "run", "echo"}, out);
  EXPECT_EQ(driver.world().rank(), 0);
  EXPECT_FALSE(driver.world().distributed());
  EXPECT_EQ(driver.backend().capabilities().gpu_timings, false);
  EXPECT_EQ(out.str(), "") << "starting the backend prints nothing";
}

TEST(Driver, AnUnknownBackendIsRefusedBeforeAnythingIsPrinted) {
  RunOptions options = on_the_emulator();
  options.backend = "quantum";
  std::ostringstream out;
  try {
    const Driver driver(options, {"ferry"}, out);
    ADD_FAILURE() << "a backend named quantum started";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown backend 'quantum'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out.str(), "");
}

TEST(Driver, StartPrintsTheBannerOfTheResultsItStarts) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(), {"ferry", "run", "echo"}, out);
  const Results results = driver.start();
  EXPECT_EQ(results.command_line, (std::vector<std::string>{"ferry", "run", "echo"}));
  EXPECT_EQ(results.machine.backend, "emu");
  EXPECT_NE(out.str().find("EMULATOR"), std::string::npos) << out.str();
  EXPECT_TRUE(results.workloads.empty());
}

TEST(Driver, ADryRunIsWhatItsPrinterPrintsAndExitsZero) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(), {"ferry"}, out);
  EXPECT_EQ(driver.dry_run([](std::ostream& shown) {
    shown << "the steps\n";
    return 0;
  }),
            0);
  EXPECT_EQ(out.str(), "the steps\n");
}

TEST(Driver, FinishReturnsTheExitCodeRankZeroFinishedWith) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(), {"ferry"}, out);
  EXPECT_EQ(driver.finish([](std::ostream& shown) {
    shown << "rank 0's table\n";
    return 4;
  }),
            4);
  EXPECT_EQ(out.str(), "rank 0's table\n");
}

TEST(Driver, FinishingAResultPrintsItsTableWritesTheFilesAndSaysWhetherItPassed) {
  const auto json = (std::filesystem::temp_directory_path() / "ferry-driver-test.json").string();
  RunOptions options = on_the_emulator();
  options.outputs.json_path = json;
  for (const Check check : {Check::passed, Check::failed}) {
    std::ostringstream out;
    const Driver driver(options, {"ferry", "run", "echo"}, out);
    Results results = driver.start();
    const int code = driver.finish(results, one_row(check));
    const bool passed = check == Check::passed;
    EXPECT_EQ(code, passed ? 0 : 1);
    EXPECT_NE(out.str().find(passed ? "echo: PASSED" : "echo: FAILED"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("results: " + json), std::string::npos) << out.str();
    const auto doc = nlohmann::json::parse(read_file(json));
    ASSERT_EQ(doc["workloads"].size(), 1u);
    EXPECT_EQ(doc["workloads"][0]["name"], "echo");
    EXPECT_EQ(doc["workloads"][0]["verification"], passed ? "PASSED" : "FAILED");
  }
  std::filesystem::remove(json);
}

}  // namespace
}  // namespace driver_test
}  // namespace ferry
