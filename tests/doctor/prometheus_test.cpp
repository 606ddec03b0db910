// --prometheus's text on findings described in numbers: one series per check
// and subject with its worst verdict, figures in base units where a finding
// has one, labels escaped as the text format wants.
#include "doctor/prometheus.hpp"

#include <gtest/gtest.h>

// A namespace of its own: a unity build compiles it with the other doctor tests, whose helpers share its names.
namespace ferry::doctor::prometheus_test {
namespace {

Machine one_gpu(const std::string& hostname) {
  Machine m;
  m.host.hostname = hostname;
  GpuFacts g;
  g.uuid = "GPU-a";
  m.gpus.push_back(g);
  return m;
}

bool has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(DoctorPrometheus, EachCheckAndSubjectIsOneSeriesWithItsWorstVerdict) {
  const std::vector<Finding> findings = {
      {.check = "environment", .subject = "host", .verdict = Verdict::ok},
      {.check = "environment", .subject = "host", .verdict = Verdict::warn},
      {.check = "numa placement", .subject = "GPU 0", .verdict = Verdict::not_judged},
      {.check = "pinned d2h",
       .subject = "GPU 0",
       .verdict = Verdict::fail,
       .value = 12.5e9,
       .model = 63e9,
       .unit = Unit::bytes_per_second},
      {.check = "launch + sync", .subject = "GPU 0", .value = 8.5e-6, .model = 1.042e-5, .unit = Unit::seconds}};
  const std::string text = prometheus_text(findings, one_gpu("node1"), 1.8e9);
  EXPECT_EQ(text.rfind("# HELP ferry_doctor_verdict ", 0), 0u) << text;
  EXPECT_TRUE(has(text, R"(ferry_doctor_verdict{Hostname="node1",check="environment",subject="host"} 1)")) << text;
  EXPECT_EQ(text.find(R"(check="environment",subject="host"} 0)"), std::string::npos) << "one series, the worst";
  EXPECT_TRUE(has(
      text, R"(ferry_doctor_verdict{Hostname="node1",check="numa placement",subject="GPU 0",gpu="0",UUID="GPU-a"} -1)"))
      << text;
  EXPECT_TRUE(
      has(text, R"(ferry_doctor_verdict{Hostname="node1",check="pinned d2h",subject="GPU 0",gpu="0",UUID="GPU-a"} 2)"))
      << text;
  EXPECT_TRUE(has(
      text,
      R"(ferry_doctor_rate_bytes_per_second{Hostname="node1",check="pinned d2h",subject="GPU 0",gpu="0",UUID="GPU-a"} 12500000000)"))
      << text;
  EXPECT_TRUE(has(
      text,
      R"(ferry_doctor_rate_reference_bytes_per_second{Hostname="node1",check="pinned d2h",subject="GPU 0",gpu="0",UUID="GPU-a"} 63000000000)"))
      << text;
  EXPECT_TRUE(has(
      text,
      R"(ferry_doctor_time_seconds{Hostname="node1",check="launch + sync",subject="GPU 0",gpu="0",UUID="GPU-a"} 8.5e-06)"))
      << text;
  EXPECT_EQ(text.find("ferry_doctor_rate_bytes_per_second{Hostname=\"node1\",check=\"launch"), std::string::npos)
      << "a time is not a rate";
  EXPECT_TRUE(has(text, R"(ferry_doctor_findings{Hostname="node1",verdict="FAIL"} 1)")) << text;
  EXPECT_TRUE(has(text, R"(ferry_doctor_findings{Hostname="node1",verdict="not judged"} 2)")) << text;
  EXPECT_TRUE(has(text, R"(ferry_doctor_last_run_timestamp_seconds{Hostname="node1"} 1800000000)")) << text;
  for (const char* metric : {"ferry_doctor_verdict", "ferry_doctor_rate_bytes_per_second", "ferry_doctor_findings"})
    EXPECT_NE(text.find(std::string("# TYPE ") + metric + " gauge\n"), std::string::npos) << metric;
}

TEST(DoctorPrometheus, LabelValuesAreEscapedAsTheTextFormatSays) {
  const std::vector<Finding> findings = {
      {.check = "a \"quoted\" check", .subject = "back\\slash\nand a line", .verdict = Verdict::ok}};
  const std::string text = prometheus_text(findings, one_gpu("node\"1"), 0);
  EXPECT_TRUE(
      has(text,
          R"(ferry_doctor_verdict{Hostname="node\"1",check="a \"quoted\" check",subject="back\\slash\nand a line"} 0)"))
      << text;
}

}  // namespace
}  // namespace ferry::doctor::prometheus_test
