// The layers' include rule over every file under src/. The build enforces it
// for what each layer's own sources include (a layer sees only the include
// roots of the layers under it, src/CMakeLists.txt); this also reaches a
// header that only a higher layer includes, where the build cannot.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace ferry {
namespace {

namespace fs = std::filesystem;

// What each layer may include: itself and the layers under it (docs/architecture.md).
const std::map<std::string, std::set<std::string>> may_include = {
    {"core", {"core"}},
    {"backend", {"backend", "core"}},
    {"model", {"model", "core"}},
    {"transport", {"transport", "backend", "core"}},
    {"bench", {"bench", "transport", "model", "backend", "core"}},
    {"run", {"run", "bench", "transport", "model", "backend", "core"}},
    {"doctor", {"doctor", "run", "bench", "transport", "model", "backend", "core"}},
    {"cli", {"cli", "doctor", "run", "bench", "transport", "model", "backend", "core"}},
};

// run/ holds what every workload uses; doctor's pass, judgments and fleet are doctor/'s.
TEST(Layers, RunHoldsNoDoctorFile) {
  for (const auto& file : fs::directory_iterator(fs::path(FERRY_SOURCE_DIR) / "src" / "run")) {
    const std::string name = file.path().filename().string();
    EXPECT_EQ(name.find("doctor"), std::string::npos) << "src/run/" << name << " belongs in src/doctor/";
    std::ifstream in(file.path());
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    EXPECT_EQ(text.find("namespace ferry::doctor"), std::string::npos)
        << "src/run/" << name << " holds doctor's code: it belongs in src/doctor/";
  }
}

TEST(Layers, NoFileUnderSrcIncludesALayerAboveItsOwn) {
  const fs::path src = fs::path(FERRY_SOURCE_DIR) / "src";
  const std::regex include(R"(^\s*#\s*include\s*"([a-z_]+)/)");
  int files = 0;
  for (const auto& layer : fs::directory_iterator(src)) {
    if (!layer.is_directory()) continue;
    const std::string name = layer.path().filename().string();
    const auto allowed = may_include.find(name);
    ASSERT_NE(allowed, may_include.end()) << "src/" << name << "/ is no layer this test knows: add it here and "
                                          << "in src/CMakeLists.txt";
    for (const auto& file : fs::recursive_directory_iterator(layer.path())) {
      if (!file.is_regular_file()) continue;
      ++files;
      std::ifstream in(file.path());
      int number = 0;
      for (std::string line; std::getline(in, line);) {
        ++number;
        std::smatch m;
        if (std::regex_search(line, m, include) && !allowed->second.count(m[1]))
          ADD_FAILURE() << fs::relative(file.path(), src).string() << ":" << number << " includes " << m[1]
                        << "/, a layer above " << name << "/";
      }
    }
  }
  EXPECT_GT(files, 100);
}

// cli/ reaches bench/ through run/ (the driver a workload's declaration hands
// its config to); a declaration cli/workloads/NAME.cpp includes its own
// workload's bench/NAME/NAME.hpp and nothing else of bench/.
TEST(Layers, CliIncludesNoBenchHeaderButEachWorkloadDeclarationItsOwn) {
  const fs::path cli = fs::path(FERRY_SOURCE_DIR) / "src" / "cli";
  const std::regex bench_include(R"re(^\s*#\s*include\s*"(bench/[^"]*)")re");
  int files = 0;
  for (const auto& file : fs::recursive_directory_iterator(cli)) {
    if (!file.is_regular_file()) continue;
    ++files;
    const fs::path relative = fs::relative(file.path(), cli);
    const std::string name = relative.stem().string();
    const std::string own = relative.parent_path() == "workloads" ? "bench/" + name + "/" + name + ".hpp" : "";
    std::ifstream in(file.path());
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::smatch m;
      if (std::regex_search(line, m, bench_include) && m[1] != own)
        ADD_FAILURE() << "src/cli/" << relative.string() << ":" << number << " includes " << m[1]
                      << ": cli/ reaches bench/ through run/, and a workload's declaration includes only its own "
                      << "bench/NAME/NAME.hpp";
    }
  }
  EXPECT_GT(files, 10);
}

}  // namespace
}  // namespace ferry
