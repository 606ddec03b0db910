#include "core/json_checksum.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/results_json.hpp"

namespace ferry {
namespace {

using nlohmann::ordered_json;

// The same text and checksum are in python/tests/test_checksum.py: the two
// languages must agree on every kind of value, floats above all.
constexpr const char* shared_vector = R"([{"b":1,"a":[true,false,null]},0.1,1e20,-0.0,5e-324,1.7976931348623157e308,)"
                                      R"(123456789.123456789,2.0,2,-3,18446744073709551615,"ä→",""])";

TEST(JsonChecksum, AgreesWithPythonOnEveryKindOfValue) {
  EXPECT_EQ(json_checksum(ordered_json::parse(shared_vector)), "fnv1a64:fad4ddf51ec3be59");
  EXPECT_EQ(json_checksum(ordered_json::array()), "fnv1a64:09612b07b5ecb5a5");
  EXPECT_EQ(json_checksum(ordered_json::object()), "fnv1a64:08f44b07b5901a25");
}

TEST(JsonChecksum, KeyOrderDoesNotMatterButEveryValueDoes) {
  const ordered_json row = ordered_json::parse(R"({"value": 50.0, "check": "PASSED", "samples": 3})");
  EXPECT_EQ(json_checksum(row),
            json_checksum(ordered_json::parse(R"({"samples": 3, "check": "PASSED", "value": 50.0})")));
  EXPECT_EQ(json_checksum(row), json_checksum(ordered_json::parse(R"({"value": 50, "check": "PASSED", "samples": 3})")))
      << "a JSON number is its value: 50.0 is 50";
  for (const char* edited :
       {R"({"value": 50.000000000000007, "check": "PASSED", "samples": 3})",
        R"({"value": 50.0, "check": "FAILED", "samples": 3})", R"({"value": 50.0, "check": "PASSED", "samples": true})",
        R"({"value": 50.0, "check": "PASSED"})"})
    EXPECT_NE(json_checksum(row), json_checksum(ordered_json::parse(edited))) << edited;
}

TEST(JsonChecksum, ANonFiniteFloatCountsAsTheNullTheFileHolds) {
  // nlohmann writes NaN and infinity as null, so the checksum must read them so too.
  const ordered_json written = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()};
  EXPECT_EQ(json_checksum(written), json_checksum(ordered_json::parse(written.dump())));
}

TEST(JsonChecksum, EachWorkloadsRowsChecksumIsOfTheRowsAsWritten) {
  Row row;
  row.section = "bandwidth";
  row.params = {{"bytes", std::int64_t{4096}}, {"memory", "pinned"}};
  row.metric = Metric::rate;
  row.bytes_per_sample = 4096;
  // Floats whose shortest and round-trip forms differ are where printing disagrees.
  row.seconds = {0.1 + 0.2, 1.0 / 3, 2e-5 / 3, std::nextafter(1e-6, 1.0)};
  WorkloadResult w;
  w.workload = "link";
  w.sections = {{"bandwidth", "Bandwidth"}};
  w.rows = {row};
  Results r;
  r.machine.backend = "emu";
  r.workloads = {w};
  const auto doc = ordered_json::parse(results_to_json(r));
  const auto& workload = doc["workloads"][0];
  EXPECT_EQ(workload["rows_checksum"], json_checksum(workload["rows"]));
}

}  // namespace
}  // namespace ferry
