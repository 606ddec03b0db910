// A workload on one device whose model reads link's ceilings (stream, overlap,
// dispatch) as the driver runs it: the profile read first, its dry run with
// link's steps, validation, the ceilings measured before it, and the finish.
#include "run/one_device_workload.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "run/echo_run.hpp"  // tests/run

namespace ferry {
// Its own namespace: a unity build compiles the run tests together, and their helpers share names.
namespace one_device_workload_test {
namespace {

using echo_run::on_the_emulator;
using echo_run::one_row;

// A workload of one step on device 0, whose run says what it was given.
struct Echo {
  bool refuses = false;
  std::string profile_path;
  bool ran = false;
  LinkCeilings ceilings;

  OneDeviceWorkload workload() {
    return {
        .name = "echo",
        .device = 0,
        .profile_path = profile_path,
        .validate =
            [this] {
              if (refuses) throw UsageError("echo cannot run here");
            },
        .plan = [] { return Plan{.steps = {{.what = "echo: 1 KiB"}}}; },
        .run =
            [this](const Machine&, const LinkCeilings& given, const Progress&) {
              ran = true;
              ceilings = given;
              return one_row();
            },
    };
  }
};

TEST(OneDeviceWorkload, ADryRunListsLinksStepsForTheCeilingsThenTheWorkloadsAndRunsNothing) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(true), {"ferry"}, out);
  Echo echo;
  EXPECT_EQ(run_one_device_workload(driver, echo.workload()), 0);
  EXPECT_FALSE(echo.ran);
  const std::string text = out.str();
  const auto link = text.find("\nlink: "), workload = text.find("\necho: 1 steps");
  ASSERT_NE(link, std::string::npos) << text;
  ASSERT_NE(workload, std::string::npos) << text;
  EXPECT_LT(link, workload);
}

TEST(OneDeviceWorkload, ADryRunIsRefusedBeforeItPrintsAStep) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(true), {"ferry"}, out);
  Echo echo{.refuses = true};
  EXPECT_THROW(run_one_device_workload(driver, echo.workload()), UsageError);
  EXPECT_EQ(out.str(), "");
}

TEST(OneDeviceWorkload, ARunIsRefusedAfterItsBannerAndBeforeAnythingIsMeasured) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(), {"ferry"}, out);
  Echo echo{.refuses = true};
  EXPECT_THROW(run_one_device_workload(driver, echo.workload()), UsageError);
  EXPECT_NE(out.str().find("EMULATOR"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("\nlink: "), std::string::npos) << "link measured before refusing: " << out.str();
  EXPECT_FALSE(echo.ran);
}

TEST(OneDeviceWorkload, AProfileThatCannotBeReadIsRefusedBeforeAnythingIsPrinted) {
  std::ostringstream out;
  const Driver driver(on_the_emulator(), {"ferry"}, out);
  Echo echo{.profile_path = "/nonexistent/profile.json"};
  try {
    run_one_device_workload(driver, echo.workload());
    ADD_FAILURE() << "ran without its profile";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/profile.json"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out.str(), "");
}

TEST(OneDeviceWorkload, LinkMeasuresTheCeilingsFirstAndItsRowsJoinTheResultsBeforeTheWorkloads) {
  const auto json = (std::filesystem::temp_directory_path() / "ferry-one-device-workload-test.json").string();
  RunOptions options = on_the_emulator();
  options.outputs.json_path = json;
  std::ostringstream out;
  const Driver driver(options, {"ferry", "run", "echo"}, out);
  Echo echo;
  EXPECT_EQ(run_one_device_workload(driver, echo.workload()), 0) << out.str();
  EXPECT_TRUE(echo.ran);
  EXPECT_EQ(echo.ceilings.origin, "measured by link in this run");
  EXPECT_GT(echo.ceilings.device.h2d_Bps, 0);
  const auto doc = nlohmann::json::parse(read_file(json));
  ASSERT_EQ(doc["workloads"].size(), 2u);
  EXPECT_EQ(doc["workloads"][0]["name"], "link");
  EXPECT_EQ(doc["workloads"][1]["name"], "echo");
  std::filesystem::remove(json);
}

}  // namespace
}  // namespace one_device_workload_test
}  // namespace ferry
