// doctor/'s judgments, facts, thresholds and reports are pure: they take what
// doctor/measure/ read and measured as doctor's own types, and include no layer
// that measures (backend/, transport/, bench/, run/). Only doctor/measure/ does,
// and doctor/run.cpp, which hands the pass to the driver (run/driver.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

namespace ferry::doctor::includes_test {
namespace {

namespace fs = std::filesystem;

TEST(DoctorIncludes, OnlyTheMeasuringFilesIncludeWhatMeasures) {
  const fs::path doctor = fs::path(FERRY_SOURCE_DIR) / "src" / "doctor";
  const std::regex include(R"(^\s*#\s*include\s*"([a-z_]+/(measure/)?))");
  const std::set<std::string> pure = {"core/", "model/", "doctor/"};
  int files = 0;
  for (const auto& file : fs::recursive_directory_iterator(doctor)) {
    const fs::path relative = fs::relative(file.path(), doctor);
    if (!file.is_regular_file() || *relative.begin() == "measure" || relative.stem() == "run") continue;
    ++files;
    std::ifstream in(file.path());
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::smatch m;
      if (std::regex_search(line, m, include) && !pure.count(m[1]))
        ADD_FAILURE()
            << "src/doctor/" << relative.string() << ":" << number << " includes " << m[1]
            << ": only doctor/measure/ and doctor/run.cpp may; a judgment takes doctor's own types (doctor/facts.hpp)";
    }
  }
  EXPECT_GT(files, 20);
}

}  // namespace
}  // namespace ferry::doctor::includes_test
