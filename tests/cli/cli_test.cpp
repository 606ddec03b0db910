// The command line as a user meets it: every bad input is one clear message
// and a non-zero exit; good runs print tables and write their files.
#include "cli/cli.hpp"
#include "cli/run_options.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backend/select.hpp"
#include "cli/run_ferry.hpp"  // tests/cli
#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace ferry {
namespace {

void expect_bad_input(const Outcome& o, const std::string& message) {
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find(message), std::string::npos) << "stderr was: " << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one message, not several: " << o.err;
}

TEST(Cli, ListNamesEachWorkloadAndWhatItMeasures) {
  const Outcome o = ferry({"list"});
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("link"), std::string::npos);
  EXPECT_NE(o.out.find("measures:"), std::string::npos);
}

TEST(Cli, HelpExplainsEveryCommand) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--help"},
                                                                {"run", "--help"},
                                                                {"run", "link", "--help"},
                                                                {"run", "stream", "--help"},
                                                                {"tune", "stream", "--help"},
                                                                {"run", "overlap", "--help"},
                                                                {"run", "dispatch", "--help"},
                                                                {"run", "beff", "--help"},
                                                                {"model", "beff", "--help"},
                                                                {"run", "topo", "--help"},
                                                                {"probe", "--help"}}) {
    const Outcome o = ferry(args);
    EXPECT_EQ(o.code, 0);
    EXPECT_NE(o.out.find("Usage"), std::string::npos) << o.out;
  }
  EXPECT_NE(ferry({"run", "link", "--help"}).out.find("--sizes"), std::string::npos);
  EXPECT_NE(ferry({"run", "overlap", "--help"}).out.find("--min-split"), std::string::npos);
  EXPECT_NE(ferry({"run", "dispatch", "--help"}).out.find("--rungs"), std::string::npos);
  EXPECT_NE(ferry({"run", "beff", "--help"}).out.find("--transport"), std::string::npos);
  EXPECT_NE(ferry({"model", "beff", "--help"}).out.find("--per-node"), std::string::npos);
}

TEST(Cli, UnknownWorkload) { expect_bad_input(ferry({"run", "teleport"}), "unknown workload 'teleport'"); }

TEST(Cli, MalformedSize) { expect_bad_input(ferry(quick_link({"--sizes", "12QB"})), "malformed size '12QB'"); }

TEST(Cli, ZeroAndNegativeCounts) {
  expect_bad_input(ferry({"run", "link", "--backend", "emu", "--round-trips", "0"}),
                   "--round-trips must be at least 1");
  expect_bad_input(ferry(quick_link({"--kernels", "-5"})), "--kernels must be at least 1");
}

TEST(Cli, ADeviceThatDoesNotExist) {
  expect_bad_input(ferry(quick_link({"--device", "9"})), "device 9 does not exist");
  expect_bad_input(ferry(quick_link({"--devices", "0,7"})), "device 7 does not exist");
  expect_bad_input(ferry(quick_link({"--device", "-1"})), "device -1 does not exist");
  expect_bad_input(ferry(quick_link({"--device", "0", "--devices", "0,1"})), "not both");
}

TEST(Cli, MoreMemoryThanTheDeviceHas) {
  expect_bad_input(ferry(quick_link({"--sizes", "4K,1P"})), "malformed size '1P'");
  expect_bad_input(ferry(quick_link({"--sizes", "4K,4T"})), "needs 8 TiB on device 0");
}

// Each buffer link holds is named by the option that sized it: the sweep, the device copy, the peer copies, the queue.
TEST(Cli, ACopyTooLargeForTheDeviceIsBlamedOnTheOptionThatAskedForIt) {
  expect_bad_input(ferry(quick_link({"--device-copy-size", "4T"})),
                   "--device-copy-size 4 TiB needs 8 TiB on device 0 (a source and a destination)");
  expect_bad_input(ferry(quick_link({"--peer-size", "4T"})),
                   "--peer-size 4 TiB needs 8 TiB on device 0 (a source and a destination)");
  expect_bad_input(ferry(quick_link({"--queued-sizes", "4K,1T"})),
                   "--queued-sizes up to 1 TiB needs 8 TiB on device 0");
  expect_bad_input(ferry(quick_link({"--sizes", "4K,4T"})), "--sizes up to 4 TiB needs 8 TiB on device 0");
}

TEST(Cli, AnUnavailableOrUnknownBackend) {
  expect_bad_input(ferry({"run", "link", "--backend", "quantum"}), "unknown backend 'quantum'");
  if (cuda_unavailable_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  expect_bad_input(ferry({"run", "link", "--backend", "cuda"}), "the cuda backend is not available");
}

TEST(Cli, UnknownHostMemoryAndOptions) {
  expect_bad_input(ferry(quick_link({"--memory", "pinned,glass"})), "unknown host memory 'glass'");
  EXPECT_EQ(ferry({"run", "link", "--frobnicate"}).code, 2);
  EXPECT_EQ(ferry({}).code, 2);
}

TEST(Cli, AnEmulatedRunSaysSoPassesAndWritesJsonAndCsv) {
  const auto dir = std::filesystem::temp_directory_path() / "ferry_cli_test";
  std::filesystem::create_directories(dir);
  const std::string json = (dir / "link.json").string(), csv = (dir / "link.csv").string();
  const Outcome o = ferry(quick_link({"--json", json, "--csv", csv}));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("EMULATOR"), std::string::npos);
  EXPECT_NE(o.out.find("link: PASSED"), std::string::npos);
  const auto doc = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(doc["schema"], "ferry.results/1");
  EXPECT_EQ(doc["command_line"][1], "run");
  EXPECT_EQ(doc["workloads"][0]["name"], "link");
  EXPECT_EQ(doc["workloads"][0]["verification"], "PASSED");
  EXPECT_GT(read_file(csv).size(), 100u);
  std::filesystem::remove_all(dir);
}

TEST(Cli, ProbeWritesAProfileTheModelsCanRead) {
  const auto path = (std::filesystem::temp_directory_path() / "ferry_probe_test.json").string();
  const Outcome o = ferry({"probe", "--backend", "emu", "--quick", "--quiet", "--round-trips", "200", "-o", path});
  EXPECT_EQ(o.code, 0) << o.err;
  const auto doc = nlohmann::json::parse(read_file(path));
  EXPECT_EQ(doc["schema"], "ferry.profile/1");
  EXPECT_GT(doc["devices"][0]["flag_round_trip_s"].get<double>(), 0);
  std::filesystem::remove(path);
  expect_bad_input(ferry({"probe", "--backend", "emu"}), "--output is required");
}

TEST(Cli, AResultsPathThatCannotBeWrittenIsRefusedBeforeAnythingIsMeasured) {
  for (const std::string path : {"/nonexistent-dir/r.json", "/proc/ferry-r.json", "/tmp"}) {
    for (const std::string option : {"--json", "--csv"}) {
      const Outcome o = ferry(quick_link({option, path}));
      EXPECT_EQ(o.code, 2) << path;
      EXPECT_NE(o.err.find("cannot write '" + path + "'"), std::string::npos) << o.err;
      EXPECT_EQ(o.out.find("link:"), std::string::npos) << "measured before refusing " << path;
    }
  }
  expect_bad_input(ferry({"probe", "--backend", "emu", "-o", "/nonexistent-dir/p.json"}), "cannot write");
  expect_bad_input(ferry({"run", "overlap", "--backend", "emu", "--trace", "/nonexistent-dir/t.json"}), "cannot write");
}

TEST(Cli, ResultsThatCannotBeWrittenAtTheEndGoToANamedFallbackFile) {
  // The path was writable when the run began and is not any more: the results are kept elsewhere, and said where.
  const auto folder = std::filesystem::temp_directory_path() / "ferry_fallback_test";
  std::filesystem::create_directories(folder);
  RunOptions options;
  options.outputs.json_path = (folder / "gone" / "r.json").string();
  Results results;
  results.ferry_version = "test";
  WorkloadResult w;
  w.workload = "link";
  results.workloads.push_back(w);
  std::ostringstream out;
  std::string message;
  try {
    finish_run(results, options.outputs, out);
  } catch (const RuntimeFailure& e) {
    message = e.what();
  }
  const auto at = message.find("the results are in '");
  ASSERT_NE(at, std::string::npos) << message;
  const std::string fallback = message.substr(at + 20, message.find('\'', at + 20) - (at + 20));
  EXPECT_EQ(nlohmann::json::parse(read_file(fallback))["schema"], "ferry.results/1");
  EXPECT_NE(message.find("cannot write '" + options.outputs.json_path + "'"), std::string::npos) << message;
  std::filesystem::remove(fallback);
  std::filesystem::remove_all(folder);
}

// The fault hook FERRY_FAULT_DISK_FULL=FOLDER for one test: files under FOLDER run out of space half way.
class DiskFullUnder {
 public:
  explicit DiskFullUnder(const std::filesystem::path& folder) { ::setenv(disk_full_variable, folder.c_str(), 1); }
  ~DiskFullUnder() { ::unsetenv(disk_full_variable); }
};

std::filesystem::path fresh_temp_folder(const char* name) {
  const auto folder = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) files.push_back(entry.path());
  return files;
}

TEST(Cli, ADiskThatFillsWhileResultsAreWrittenLeavesNoPartialFileAndSaysWhereTheyWent) {
  const auto folder = fresh_temp_folder("ferry_disk_full_test");
  const std::string json = (folder / "r.json").string();
  Outcome o;
  {
    const DiskFullUnder full(folder);
    o = ferry(quick_link({"--json", json}));
  }
  EXPECT_EQ(o.code, 3) << o.err;
  EXPECT_NE(o.err.find("cannot write '" + json + "': No space left on device"), std::string::npos) << o.err;
  EXPECT_TRUE(files_in(folder).empty()) << "a partial or temporary file was left: " << files_in(folder).front();
  const auto at = o.err.find("the results are in '");
  ASSERT_NE(at, std::string::npos) << o.err;
  const std::string fallback = o.err.substr(at + 20, o.err.find('\'', at + 20) - (at + 20));
  EXPECT_EQ(nlohmann::json::parse(read_file(fallback))["workloads"][0]["verification"], "PASSED");
  std::filesystem::remove(fallback);
  std::filesystem::remove_all(folder);
}

TEST(Cli, WhenTheTemporaryFolderIsFullTooTheErrorSaysBothWritesFailedAndNoFileIsLeft) {
  const auto folder = fresh_temp_folder("ferry_disk_full_both_test");
  const std::string json = (folder / "r.json").string();
  Outcome o;
  {
    const DiskFullUnder full(std::filesystem::temp_directory_path());  // the results' folder and the fallback's
    o = ferry(quick_link({"--json", json}));
  }
  EXPECT_EQ(o.code, 3) << o.err;
  EXPECT_NE(o.err.find("nor could the results be kept in the temporary folder"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_TRUE(files_in(folder).empty());
  for (const auto& f : files_in(std::filesystem::temp_directory_path()))
    EXPECT_EQ(f.filename().string().find(fmt::format("ferry-unsaved-{}-", ::getpid())), std::string::npos) << f;
  std::filesystem::remove_all(folder);
}

// The current folder for one test, put back after it.
class InFolder {
 public:
  explicit InFolder(const std::filesystem::path& folder) : before_(std::filesystem::current_path()) {
    std::filesystem::current_path(folder);
  }
  ~InFolder() { std::filesystem::current_path(before_); }

 private:
  std::filesystem::path before_;
};

TEST(Cli, ADiskFullFolderGivenRelativeMatchesTheFilesItsAbsoluteFormMatches) {
  const auto folder = fresh_temp_folder("ferry_disk_full_relative_test");
  const std::string content(4096, 'x');
  {
    const InFolder in(folder);
    for (const std::string full : {folder.string(), std::string("."), std::string("./")}) {
      for (const std::string file : {std::string("r.json"), (folder / "r.json").string()}) {
        std::filesystem::remove(folder / "r.json");
        const DiskFullUnder under(full);
        EXPECT_THROW(write_file_atomically(file, content), RuntimeFailure)
            << "FERRY_FAULT_DISK_FULL=" << full << ", file " << file;
        EXPECT_TRUE(files_in(folder).empty()) << full << " " << file;
      }
    }
    const DiskFullUnder elsewhere("other");
    EXPECT_NO_THROW(write_file_atomically("r.json", content));
  }
  std::filesystem::remove_all(folder);
}

std::vector<std::string> quick_stream(std::vector<std::string> more) {
  std::vector<std::string> args = {"run",     "stream", "--backend", "emu",     "--quick",      "--quiet",
                                   "--total", "256K",   "--chunks",  "16K,64K", "--iterations", "1"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// An emulator profile written by `ferry probe`, so a stream test times the stream, not link.
std::string emulator_profile(const char* name) {
  const std::string profile = (std::filesystem::temp_directory_path() / name).string();
  const Outcome o = ferry({"probe", "--backend", "emu", "--quick", "--quiet", "--round-trips", "200", "-o", profile});
  EXPECT_EQ(o.code, 0) << o.err;
  return profile;
}

// The fault hook FERRY_FAULT_UNSEEN_FLAG=ROLE@CHUNK for one test.
class UnseenFlag {
 public:
  explicit UnseenFlag(const char* where) { ::setenv("FERRY_FAULT_UNSEEN_FLAG", where, 1); }
  ~UnseenFlag() { ::unsetenv("FERRY_FAULT_UNSEEN_FLAG"); }
};

class PersistentRoleThatNeverSeesItsChunk : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(PersistentRoleThatNeverSeesItsChunk, TimesOutNamingTheRoleAndTheChunkWithoutHanging) {
  const auto [where, named] = GetParam();
  // One profile per case: ctest runs the cases at once, and each removes its own.
  const std::string profile = emulator_profile(fmt::format("ferry-unseen-flag-{}.json", where).c_str());
  const auto start = std::chrono::steady_clock::now();
  Outcome o;
  {
    const UnseenFlag unseen(where);
    o = ferry(quick_stream({"--design", "persistent", "--depth", "1", "--timeout", "300ms", "--profile", profile}));
  }
  std::filesystem::remove(profile);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(o.code, 3) << o.err;
  // Named, the role gave up after --timeout's 0.3 s: had the kernel not given up, the host, waiting twice as
  // long, would have said "no team gave up waiting".
  EXPECT_NE(o.err.find(std::string(named) + " for 0.3 s"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  // Only a hang takes this long: on a 2-core machine at load average 7.6 the runs took 0.6 to 4.4 s (the bound
  // was 5 s).
  EXPECT_LT(seconds, 120.0) << o.err;
}

INSTANTIATE_TEST_SUITE_P(Cli, PersistentRoleThatNeverSeesItsChunk,
                         ::testing::Values(std::pair{"producer@0", "the producer (team 0) gave up waiting for chunk 0"},
                                           std::pair{"stage2@3", "stage 2 (team 0) gave up waiting for chunk 3"},
                                           std::pair{"consumer@5",
                                                     "the consumer (team 0) gave up waiting for chunk 5"}));

TEST(Cli, AMalformedUnseenFlagHookIsRefusedNamingTheVariable) {
  const UnseenFlag unseen("stage9@1");
  expect_bad_input(ferry(quick_stream({"--design", "persistent"})), "FERRY_FAULT_UNSEEN_FLAG='stage9@1'");
}

TEST(Cli, ATimeoutOutsideOneMillisecondToOneDayIsRefused) {
  expect_bad_input(ferry(quick_stream({"--timeout", "10us"})), "--timeout 10us is out of range");
  expect_bad_input(ferry(quick_stream({"--timeout", "99999999999999999999s"})), "out of range");
}

TEST(Cli, StreamRunsEveryDesignAndWritesTheLinkProfileItMeasuredBeside) {
  const std::string path = (std::filesystem::temp_directory_path() / "ferry-stream-test.json").string();
  const Outcome o = ferry(quick_stream({"--json", path}));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("stream: PASSED"), std::string::npos);
  const auto doc = nlohmann::json::parse(read_file(path));
  ASSERT_EQ(doc["workloads"].size(), 2u);
  EXPECT_EQ(doc["workloads"][0]["name"], "link") << "the model's ceilings, measured in the same run";
  EXPECT_EQ(doc["workloads"][1]["name"], "stream");
  std::filesystem::remove(path);
}

TEST(Cli, AFlopsPerByteStreamCannotRunIsRefusedNamingTheValuesItCan) {
  for (const char* unrunnable : {"0.3", "0.75", "1.2"})
    expect_bad_input(ferry(quick_stream({"--flops-per-byte", unrunnable, "--dry-run"})),
                     fmt::format("--flops-per-byte {}: a stage does whole multiply-adds", unrunnable));
  const Outcome refused = ferry(quick_stream({"--flops-per-byte", "0.3", "--dry-run"}));
  EXPECT_NE(refused.err.find("0.5, 1, 1.5"), std::string::npos) << refused.err;
  for (const char* runnable : {"0.5", "1.5", "16"}) {
    const Outcome o = ferry(quick_stream({"--flops-per-byte", runnable, "--dry-run"}));
    EXPECT_EQ(o.code, 0) << runnable << ": " << o.err;
  }
}

TEST(Cli, AProfileWithANegativeRateIsRefusedNamingTheFileAndTheField) {
  const std::string profile = emulator_profile("ferry-negative-rate-profile.json");
  auto doc = nlohmann::json::parse(read_file(profile));
  doc["devices"][0]["h2d_Bps"] = -25e9;
  write_file_atomically(profile, doc.dump(1));
  const Outcome o = ferry(quick_stream({"--design", "chunked", "--profile", profile}));
  std::filesystem::remove(profile);
  expect_bad_input(o, "'" + profile + "' is not a usable machine profile: device 0's \"h2d_Bps\" is -25000000000.0");
}

TEST(Cli, StreamReadsAProfileInsteadOfMeasuringOne) {
  ASSERT_EQ(ferry(quick_link({"--sizes", "64K"})).code, 0);
  const std::string profile = emulator_profile("ferry-stream-profile.json");
  const Outcome o = ferry(quick_stream({"--design", "chunked", "--profile", profile}));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.find("\nlink: "), std::string::npos);
  EXPECT_NE(o.out.find("model ceilings: from the profile " + profile), std::string::npos) << o.out;
  std::filesystem::remove(profile);
}

TEST(Cli, StreamBadInputIsOneMessage) {
  expect_bad_input(ferry(quick_stream({"--design", "fastest"})), "unknown design 'fastest'");
  const std::vector<std::string> emu_stream = {"run", "stream", "--backend", "emu", "--quiet", "--total", "256K"};
  auto chunks = [&](std::string text) {
    std::vector<std::string> args = emu_stream;
    args.insert(args.end(), {"--chunks", text});
    return args;
  };
  expect_bad_input(ferry(chunks("12QB")), "malformed size '12QB'");
  expect_bad_input(ferry(chunks("1M")), "larger than the stream");
  expect_bad_input(ferry(chunks("1000")), "multiple of 16 bytes");
  expect_bad_input(ferry(quick_stream({"--depth", "0"})), "--depth must be at least 1");
  expect_bad_input(ferry(quick_stream({"--stages", "-2"})), "--stages must be at least 1");
  expect_bad_input(ferry(quick_stream({"--flops-per-byte", "lots"})), "--flops-per-byte must be a number");
  expect_bad_input(ferry(quick_stream({"--device", "7"})), "device 7 does not exist");
  expect_bad_input(ferry(quick_stream({"--devices", "0,1"})), "stream runs on one device");
  expect_bad_input(ferry(quick_stream({"--profile", "/nonexistent/profile.json"})), "/nonexistent/profile.json");
}

TEST(Cli, TuneNeedsOneTargetWithAUnit) {
  const std::vector<std::string> base = {"tune",    "stream", "--backend", "emu", "--quiet",
                                         "--total", "64K",    "--chunks",  "16K"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  expect_bad_input(ferry(with({})), "give one target");
  expect_bad_input(ferry(with({"--latency", "20us", "--throughput", "1GB/s"})), "give one target");
  expect_bad_input(ferry(with({"--latency", "20"})), "malformed duration '20'");
  expect_bad_input(ferry(with({"--throughput", "40"})), "malformed rate '40'");

  const Outcome met = ferry(with({"--design", "chunked", "--depth", "1,2", "--latency", "10s"}));
  EXPECT_EQ(met.code, 0) << met.err;
  EXPECT_NE(met.out.find("best for median latency <= "), std::string::npos) << met.out;
  const std::string json = (std::filesystem::temp_directory_path() / "ferry-tune-depths.json").string();
  const Outcome searched = ferry(with({"--design", "chunked", "--latency", "10s", "--json", json}));
  EXPECT_EQ(searched.code, 0) << searched.err;
  const nlohmann::json doc = nlohmann::json::parse(read_file(json));
  nlohmann::json tuned;  // the stream workload's config; link's, measured first, sits beside it
  for (const auto& w : doc["workloads"])
    if (w["name"] == "stream") tuned = w["config"];
  EXPECT_EQ(tuned["depths"], "1,2,3,4,6,8") << "by default tune searches depths between the powers of two too";
  std::filesystem::remove(json);
  const Outcome missed = ferry(with({"--design", "chunked", "--depth", "1", "--latency", "1ns"}));
  EXPECT_EQ(missed.code, 4) << "every configuration passed, none met the target";
  EXPECT_NE(missed.out.find("no configuration met"), std::string::npos);
}

// A fast emulated overlap run; `more` may replace its --size or --splits.
std::vector<std::string> quick_overlap(std::vector<std::string> more) {
  std::vector<std::string> args = {"run", "overlap", "--backend", "emu", "--quiet", "--iterations", "2"};
  for (const char* option : {"--size", "--splits"})
    if (std::find(more.begin(), more.end(), option) == more.end())
      args.insert(args.end(), {option, std::string(option) == "--size" ? "4M" : "1,4"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(Cli, OverlapRunsAndWritesAChromeTrace) {
  const std::string trace = (std::filesystem::temp_directory_path() / "ferry-overlap-trace.json").string();
  const Outcome o = ferry(quick_overlap({"--trace", trace}));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("overlap: PASSED"), std::string::npos);
  EXPECT_NE(o.out.find("best pipelined: k = "), std::string::npos) << o.out;
  const auto doc = nlohmann::json::parse(read_file(trace));
  int boxes = 0;
  for (const auto& e : doc["traceEvents"]) boxes += e["ph"] == "X";
  EXPECT_GT(boxes, 0);
  std::filesystem::remove(trace);
}

TEST(Cli, OverlapBadInputIsOneMessage) {
  expect_bad_input(ferry(quick_overlap({"--size", "12QB"})), "malformed size '12QB'");
  expect_bad_input(ferry(quick_overlap({"--size", "6"})), "not a whole number of 4-byte words");
  expect_bad_input(ferry(quick_overlap({"--size", "1T"})), "lower --size");
  expect_bad_input(ferry(quick_overlap({"--splits", "0"})), "--splits must be at least 1");
  expect_bad_input(ferry(quick_overlap({"--splits", "many"})), "--splits must be a whole number");
  expect_bad_input(ferry(quick_overlap({"--streams", "-1"})), "--streams must be at least 1");
  expect_bad_input(ferry(quick_overlap({"--host", "mapped"})), "unknown --host 'mapped'");
  expect_bad_input(ferry(quick_overlap({"--device", "7"})), "device 7 does not exist");
  expect_bad_input(ferry(quick_overlap({"--profile", "/nonexistent/profile.json"})), "/nonexistent/profile.json");
}

// A fast emulated dispatch run; `more` may replace its --keys or --iterations.
std::vector<std::string> quick_dispatch(std::vector<std::string> more) {
  std::vector<std::string> args = {"run", "dispatch", "--backend", "emu", "--quiet"};
  for (const char* option : {"--keys", "--iterations"})
    if (std::find(more.begin(), more.end(), option) == more.end())
      args.insert(args.end(), {option, std::string(option) == "--keys" ? "1024" : "2"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(Cli, DispatchSweepsKeysAndSkipsWhatTheDeviceCannotRun) {
  const std::string json = (std::filesystem::temp_directory_path() / "ferry-dispatch.json").string();
  const Outcome o =
      ferry(quick_dispatch({"--keys", "16K:64K:x4", "--rungs", "baseline,+graph,+onchip", "--json", json}));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("dispatch: PASSED"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("skipped: 65536 keys, +onchip: 65536 keys need 264 KiB of on-chip memory"), std::string::npos)
      << o.out;
  const auto doc = nlohmann::json::parse(read_file(json));
  int ladder = 0, summary = 0;
  for (const auto& workload : doc["workloads"])
    if (workload["name"] == "dispatch")
      for (const auto& row : workload["rows"]) {
        ladder += row["section"] == "ladder";
        summary += row["section"] == "summary";
      }
  EXPECT_EQ(ladder, 3 + 2) << "16384 keys: three rungs; 65536: two";
  EXPECT_EQ(summary, 2);
  std::filesystem::remove(json);
}

TEST(Cli, DispatchBadInputIsOneMessage) {
  expect_bad_input(ferry(quick_dispatch({"--keys", "1000"})), "--keys 1000 is not a power of two");
  expect_bad_input(ferry(quick_dispatch({"--keys", "12QB"})), "--keys must be a whole number, not '12QB'");
  expect_bad_input(ferry(quick_dispatch({"--keys", "0"})), "--keys must be at least 1");
  expect_bad_input(ferry(quick_dispatch({"--keys", "4G"})), "more than 2^31");
  expect_bad_input(ferry(quick_dispatch({"--rungs", "warp"})), "unknown rung 'warp'");
  expect_bad_input(ferry(quick_dispatch({"--iterations", "0"})), "--iterations must be at least 1");
  expect_bad_input(ferry(quick_dispatch({"--tile", "1000"})), "--tile 1000 is not a power of two");
  expect_bad_input(ferry(quick_dispatch({"--tile", "1K:4K:x2"})), "--tile 1K:4K:x2: one tile size, not a sweep");
  expect_bad_input(ferry(quick_dispatch({"--device", "7"})), "device 7 does not exist");
  expect_bad_input(ferry(quick_dispatch({"--devices", "0,1"})), "dispatch runs on one device");
  expect_bad_input(ferry(quick_dispatch({"--profile", "/nonexistent/profile.json"})), "/nonexistent/profile.json");
}

// A fast emulated beff run on two devices; the test adds what it is about.
std::vector<std::string> quick_beff(std::vector<std::string> more) {
  std::vector<std::string> args = {"run", "beff", "--backend", "emu", "--quick", "--quiet", "--devices", "0,1"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(Cli, BeffRunsThePeerTransportsAndWritesLinksPeerFiguresBeside) {
  const std::string path = (std::filesystem::temp_directory_path() / "ferry-cli-beff.json").string();
  const Outcome o =
      ferry(quick_beff({"--transport", "p2p-ce,p2p-sm", "--min-time", "100us", "--repetitions", "1", "--json", path}));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("b(L) of the ring"), std::string::npos);
  EXPECT_NE(o.out.find("b_eff = "), std::string::npos);
  const auto doc = nlohmann::json::parse(read_file(path));
  ASSERT_EQ(doc["workloads"].size(), 2u);
  EXPECT_EQ(doc["workloads"][0]["name"], "link");  // the peer figures p2p-ce's model reads
  EXPECT_EQ(doc["workloads"][1]["name"], "beff");
  int ring = 0;
  for (const auto& row : doc["workloads"][1]["rows"])
    if (row["section"] == "ring") {
      ++ring;
      EXPECT_EQ(row["headline"], "best");
    }
  EXPECT_EQ(ring, 42);

  // The same file gives `ferry model beff` its terms.
  const Outcome model = ferry({"model", "beff", "--profile", path, "--devices", "4,16"});
  EXPECT_EQ(model.code, 0) << model.err;
  EXPECT_NE(model.out.find("b_eff predicted"), std::string::npos);
  EXPECT_NE(model.out.find("stays within one node"), std::string::npos) << "16 devices span two nodes of 8";
  std::filesystem::remove(path);
}

TEST(Cli, BeffBadInputIsOneMessage) {
  expect_bad_input(ferry(quick_beff({"--transport", "pigeon"})), "unknown transport 'pigeon'");
  expect_bad_input(ferry(quick_beff({"--max-size", "1M"})), "below the definition's largest message");
  expect_bad_input(ferry(quick_beff({"--max-size", "12QB"})), "malformed size '12QB'");
  expect_bad_input(ferry(quick_beff({"--repetitions", "0"})), "--repetitions must be at least 1");
  expect_bad_input(ferry(quick_beff({"--min-time", "5"})), "malformed duration '5'");
  expect_bad_input(ferry(quick_beff({"--sm-protocol", "fast"})), "unknown --sm-protocol 'fast'");
  expect_bad_input(ferry({"run", "beff", "--backend", "emu", "--devices", "0,9"}), "device 9 does not exist");
  expect_bad_input(ferry({"model", "beff", "--devices", "1"}), "a ring has 2 to 1048576 devices");
  expect_bad_input(ferry({"model", "beff", "--profile", "/nonexistent/beff.json"}), "/nonexistent/beff.json");
}

TEST(Cli, ModelBeffReadsAMachineProfilesPeers) {
  const std::string path = (std::filesystem::temp_directory_path() / "ferry-cli-peers.json").string();
  ASSERT_EQ(ferry({"probe", "--backend", "emu", "--quick", "--quiet", "--devices", "0,1", "--round-trips", "200", "-o",
                   path})
                .code,
            0);
  const Outcome o = ferry({"model", "beff", "--profile", path, "--devices", "8"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("p2p-ce"), std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ferry
