// The files a command line names (cli/command_files.hpp): no output is an input or another output, however the
// path is spelled or linked; an empty path is refused; and the words around them (an unknown command, a command
// without its workload, an argument too long to echo) say what is wrong. Each test works in a fresh folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/run_ferry.hpp"     // tests/cli
#include "core/temp_folder.hpp"  // tests/core

namespace ferry::command_files_test {
namespace {

namespace fs = std::filesystem;

using Folder = test::TempFolder;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void expect_refused(const Outcome& o, std::initializer_list<std::string> words) {
  EXPECT_EQ(o.code, 2) << o.err;
  for (const std::string& w : words) EXPECT_TRUE(contains(o.err, w)) << "missing '" << w << "' in: " << o.err;
  EXPECT_EQ(o.out, "") << "nothing may run: " << o.out;
}

// A machine profile, as `ferry probe -o` writes it.
std::string a_profile(const Folder& folder) {
  const std::string path = folder / "profile.json";
  const Outcome o = ferry({"probe", "--backend", "emu", "--quick", "--quiet", "--round-trips", "200", "-o", path});
  if (o.code != 0) throw std::runtime_error("probe failed: " + o.err);
  return path;
}

TEST(CommandFiles, AnOutputThatIsTheProfileTheRunReadsIsRefusedAndTheProfileKept) {
  const Folder folder;
  const std::string profile = a_profile(folder);
  const std::string before = contents(profile);
  fs::create_symlink(profile, folder / "link.json");
  for (const std::string& output : {profile, folder / "link.json", folder / "./profile.json"}) {
    for (const char* option : {"--json", "--csv"}) {
      SCOPED_TRACE(std::string(option) + " " + output);
      expect_refused(ferry(
                         {"run", "stream", "--backend", "emu", "--quick", "-q", "--profile", profile, option, output}),
                     {option, "--profile reads", "would replace its own input"});
      EXPECT_EQ(contents(profile), before);
    }
  }
}

TEST(CommandFiles, TwoOutputsOnOneFileAreRefusedBeforeEitherIsWritten) {
  const Folder folder;
  const std::string results = folder / "r.json";
  expect_refused(ferry(quick_link({"--json", results, "--csv", results})), {"--json and --csv both write"});
  EXPECT_FALSE(fs::exists(results));
  // The same file spelled another way, or through a link that does not resolve yet.
  fs::create_directory(folder / "sub");
  expect_refused(ferry(quick_link({"--json", results, "--csv", folder / "sub/../r.json"})), {"one file"});
  fs::create_symlink(results, folder / "dangling.csv");
  expect_refused(ferry(quick_link({"--json", results, "--csv", folder / "dangling.csv"})), {"one file"});
  EXPECT_FALSE(fs::exists(results));
  expect_refused(ferry({"run", "overlap", "--backend", "emu", "--quick", "-q", "--json", results, "--trace", results}),
                 {"--json and --trace both write"});
  const std::string prediction = folder / "p.json";
  expect_refused(ferry({"model", "beff", "--profile", prediction, "--json", prediction}),
                 {"--json would write", "--profile reads"});
}

TEST(CommandFiles, ADeviceTakesAnyNumberOfOutputs) {
  const Outcome o = ferry(quick_link({"--json", "/dev/null", "--csv", "/dev/null"}));
  EXPECT_EQ(o.code, 0) << o.err;
}

TEST(CommandFiles, AnEmptyPathIsRefusedNamingItsOption) {
  expect_refused(ferry(quick_link({"--json", ""})), {"--json", "empty path"});
  expect_refused(ferry(quick_link({"--csv", ""})), {"--csv", "empty path"});
  expect_refused(ferry({"probe", "--backend", "emu", "-o", ""}), {"--output", "empty path"});
  expect_refused(ferry({"run", "overlap", "--backend", "emu", "--trace", ""}), {"--trace", "empty path"});
  expect_refused(ferry({"run", "stream", "--backend", "emu", "--profile", ""}), {"--profile", "empty path"});
  expect_refused(ferry({"model", "beff", "--json", ""}), {"--json", "empty path"});
}

TEST(CommandFiles, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  const Outcome o = ferry({"bogus"});
  expect_refused(o, {"unknown command 'bogus'", "run", "doctor", "compare"});
  EXPECT_FALSE(contains(o.err, "A subcommand is required")) << o.err;
}

TEST(CommandFiles, ACommandWithoutItsWorkloadListsThem) {
  expect_refused(ferry({"run"}), {"`ferry run` needs a workload", "link", "stream", "beff"});
  expect_refused(ferry({"model"}), {"`ferry model` needs a workload", "beff"});
}

TEST(CommandFiles, AnArgumentTooLongToReadIsNotEchoedWhole) {
  const std::string huge(100 * 1024, '7');
  for (const Outcome& o : {ferry(quick_link({"--sizes", huge + "QB"})), ferry(quick_link({"--bogus", huge}))}) {
    EXPECT_EQ(o.code, 2) << o.err.substr(0, 300);
    EXPECT_LT(o.err.size(), 1000u) << o.err.substr(0, 300);
    EXPECT_TRUE(contains(o.err, "characters in all...]")) << o.err.substr(0, 300);
  }
}

}  // namespace
}  // namespace ferry::command_files_test
