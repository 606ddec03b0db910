// `ferry report` and `ferry compare` are the Python package's; the C++ CLI passes
// them through with their arguments and exit codes unchanged.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli/cli.hpp"

namespace ferry {
namespace {

int exit_code_of(const std::vector<std::string>& args, std::string* err = nullptr) {
  std::ostringstream out, errors;
  const int code = ferry_main(args, out, errors);
  if (err) *err = errors.str();
  return code;
}

std::string emulated_link_results() {
  const auto path = (std::filesystem::temp_directory_path() / "ferry-python-command-link.json").string();
  EXPECT_EQ(exit_code_of(
                {"run", "link", "--backend", "emu", "--quick", "--quiet", "--round-trips", "200", "--json", path}),
            0);
  return path;
}

TEST(PythonCommands, CompareIsForwardedWithItsArgumentsAndItsExitCode) {
  const std::string results = emulated_link_results();
  EXPECT_EQ(exit_code_of({"compare", results, results}), 0);                         // every figure the same
  EXPECT_EQ(exit_code_of({"compare", results, results, "--threshold", "lots"}), 2);  // the package's own bad-input exit
  EXPECT_EQ(exit_code_of({"compare", results, results + ".missing"}), 2);
}

TEST(PythonCommands, APythonThatCannotStartIsOneMessageAndExitThree) {
  ::setenv("FERRY_PYTHON", "/nonexistent/python3", 1);
  std::string err;
  const int code = exit_code_of({"report", "r.json"}, &err);
  ::unsetenv("FERRY_PYTHON");
  EXPECT_EQ(code, 3);
  EXPECT_NE(err.find("ferry report runs in Python, and '/nonexistent/python3' could not be started"), std::string::npos)
      << err;
}

// /bin/false exits 1, which compare uses for a regression; /bin/true exits 0, no regression. Neither ran ferry.
TEST(PythonCommands, AnInterpreterThatExitsWithoutRunningFerrysPythonIsOneMessageAndExitThree) {
  const std::string results = emulated_link_results();
  for (const char* python : {"/bin/false", "/bin/true"}) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"compare", results, results}, std::vector<std::string>{"report", results}}) {
      ::setenv("FERRY_PYTHON", python, 1);
      std::string err;
      const int code = exit_code_of(args, &err);
      ::unsetenv("FERRY_PYTHON");
      EXPECT_EQ(code, 3) << python << " " << args.at(0);
      EXPECT_NE(err.find(fmt::format("ferry {} runs in Python, and '{}' (FERRY_PYTHON) exited with status {} without "
                                     "running ferry's Python code",
                                     args.at(0), python, python == std::string("/bin/false") ? 1 : 0)),
                std::string::npos)
          << err;
      EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    }
  }
}

TEST(PythonCommands, HelpListsBoth) {
  std::ostringstream out, err;
  ASSERT_EQ(ferry_main({"--help"}, out, err), 0);
  EXPECT_NE(out.str().find("report"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("compare"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace ferry
