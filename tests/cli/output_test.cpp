// Where ferry's files go (docs/reliability.md, "Where output goes"): `-` is
// standard output and the tables move to standard error; a symbolic link is
// written through; a FIFO or a device is written in place, never replaced; a
// failed write is exit 3 naming the path and the cause, with the results kept.
// Every test works in a fresh temporary folder, never in the machine's /dev.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "cli/run_ferry.hpp"  // tests/cli
#include "core/atomic_file.hpp"
#include "core/output_file.hpp"
#include "core/temp_folder.hpp"  // tests/core

namespace ferry {
namespace {

namespace fs = std::filesystem;

using test::TempFolder;

// The test's working folder for its length: a `-` taken for a file name would land there, not in the build tree.
class WorkingFolder {
 public:
  explicit WorkingFolder(const fs::path& folder) : before_(fs::current_path()) { fs::current_path(folder); }
  ~WorkingFolder() { fs::current_path(before_); }

 private:
  fs::path before_;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

fs::file_type type_of(const std::string& path) { return fs::symlink_status(path).type(); }

// The fallback file a failed write names ("the results are in 'PATH' instead"), or "".
std::string fallback_named_in(const std::string& message) {
  const std::string marker = "the results are in '";
  const auto at = message.find(marker);
  if (at == std::string::npos) return "";
  const auto from = at + marker.size();
  return message.substr(from, message.find('\'', from) - from);
}

// Reads a FIFO in a thread from before ferry opens it until finish(): its
// read end stays open all the while, so ferry never waits for a reader, and
// finish() never waits on ferry (code that renames a file over the FIFO
// leaves the reader with nothing, not hung). With `close_after` it closes the
// read end once that many bytes came, as `| head -c N` does.
class FifoReader {
 public:
  explicit FifoReader(const std::string& path, std::size_t close_after = 0) : path_(path) {
    fifo_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
    if (fifo_ < 0 || ::pipe(done_) != 0) throw std::runtime_error(std::string("fifo: ") + std::strerror(errno));
    // The smallest pipe, so a closed reader is met before the writer's first 4 KiB, whatever the system's default.
    if (close_after > 0) ::fcntl(fifo_, F_SETPIPE_SZ, 4096);
    thread_ = std::thread([this, close_after] { read(close_after); });
  }
  ~FifoReader() {
    if (thread_.joinable()) finish();
    ::close(done_[0]);
    ::close(done_[1]);
  }
  // Everything read, once the writer is done (ferry_main has returned).
  std::string finish() {
    (void)!::write(done_[1], "x", 1);
    thread_.join();
    return text_;
  }
  // How many writers came and went.
  int ends() const { return ends_; }

 private:
  void read(std::size_t close_after) {
    for (;;) {
      pollfd waits[2] = {{done_[0], POLLIN, 0}, {fifo_, POLLIN, 0}};
      ::poll(waits, 2, -1);
      if (waits[1].revents != 0 && !drain(close_after > 0 ? close_after - text_.size() : SIZE_MAX)) {
        // A writer came and went. Read on, as `while :; do cat FIFO; done` does, so that a writer that opened the
        // FIFO too early (a check that ends a waiting reader's input) is seen here and not as a hang.
        ++ends_;
        ::close(fifo_);
        fifo_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK);
      }
      if (fifo_ >= 0 && close_after > 0 && text_.size() >= close_after) {
        ::close(fifo_);
        fifo_ = -1;
      }
      if (waits[0].revents != 0) break;
    }
    if (fifo_ >= 0) {
      drain(SIZE_MAX);
      ::close(fifo_);
    }
  }
  // Reads what is there, up to `limit` bytes; false once every writer has closed.
  bool drain(std::size_t limit) {
    char buffer[65536];
    while (limit > 0) {
      const ssize_t n = ::read(fifo_, buffer, std::min(sizeof buffer, limit));
      if (n > 0) limit -= static_cast<std::size_t>(n);
      if (n > 0) text_.append(buffer, static_cast<std::size_t>(n));
      if (n == 0) return false;
      if (n < 0) return errno == EAGAIN || errno == EINTR;
    }
    return true;
  }

  std::string path_;
  int fifo_ = -1;
  int ends_ = 0;
  int done_[2] = {-1, -1};
  std::string text_;
  std::thread thread_;
};

TEST(Output, ADashSendsTheResultsToStandardOutputAndTheTablesToStandardError) {
  const TempFolder folder;
  const WorkingFolder here(folder.path());
  const Outcome o = ferry(quick_link({"--json", "-"}));
  ASSERT_EQ(o.code, 0) << o.err;
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(o.out)) << "standard output holds more than the results:\n"
                                                      << o.out.substr(0, 400);
  EXPECT_EQ(doc["schema"], "ferry.results/1");
  EXPECT_EQ(doc["workloads"][0]["verification"], "PASSED");
  EXPECT_TRUE(contains(o.err, "EMULATOR")) << "the banner goes to standard error";
  EXPECT_TRUE(contains(o.err, "link: PASSED")) << "the tables go to standard error";
  EXPECT_TRUE(contains(o.err, "results: standard output")) << o.err;
  EXPECT_FALSE(fs::exists(folder / "-")) << "a file named '-' was written";
}

TEST(Output, ADashForTheCsvSendsOnlyItsLinesToStandardOutput) {
  const TempFolder folder;
  const WorkingFolder here(folder.path());
  const std::string json = folder / "r.json";
  const Outcome o = ferry(quick_link({"--csv", "-", "--json", json}));
  ASSERT_EQ(o.code, 0) << o.err;
  std::istringstream lines(o.out);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line.rfind("workload,section,", 0), 0u) << "the first line is the CSV header: " << line;
  std::size_t rows = 0, others = 0;
  std::string first_other;
  while (std::getline(lines, line)) {
    const bool row = line.rfind("link,", 0) == 0;
    rows += row;
    if (!row && others++ == 0) first_other = line;
  }
  EXPECT_EQ(others, 0u) << "lines that are no row, the first: " << first_other;
  EXPECT_EQ(rows, nlohmann::json::parse(read_file(json))["workloads"][0]["rows"].size());
  EXPECT_TRUE(contains(o.err, "link: PASSED"));
  EXPECT_FALSE(fs::exists(folder / "-"));
}

TEST(Output, TwoOutputsCannotBothBeStandardOutput) {
  const TempFolder folder;
  const WorkingFolder here(folder.path());
  const Outcome o = ferry(quick_link({"--json", "-", "--csv", "-"}));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_TRUE(contains(o.err, "--json writes to standard output (-) already")) << o.err;
  EXPECT_TRUE(contains(o.err, "give --csv a path")) << o.err;
  EXPECT_EQ(o.out, "") << "refused before anything ran";
  const Outcome probe = ferry({"probe", "--backend", "emu", "--quick", "--quiet", "-o", "-", "--json", "-"});
  EXPECT_EQ(probe.code, 2) << probe.err;
  EXPECT_FALSE(fs::exists(folder / "-"));
}

TEST(Output, ProbeAndTraceFollowTheSameRuleForADash) {
  const TempFolder folder;
  const WorkingFolder here(folder.path());
  const Outcome probe = ferry({"probe", "--backend", "emu", "--quick", "--quiet", "--round-trips", "200", "-o", "-"});
  ASSERT_EQ(probe.code, 0) << probe.err;
  EXPECT_EQ(nlohmann::json::parse(probe.out)["schema"], "ferry.profile/1");
  EXPECT_TRUE(contains(probe.err, "link: PASSED"));
  EXPECT_TRUE(contains(probe.err, "machine profile: standard output")) << probe.err;

  const Outcome trace = ferry({"run", "overlap", "--backend", "emu", "--quiet", "--iterations", "2", "--size", "4M",
                               "--splits", "1,4", "--trace", "-"});
  ASSERT_EQ(trace.code, 0) << trace.err;
  int boxes = 0;
  const nlohmann::json events = nlohmann::json::parse(trace.out)["traceEvents"];
  for (const auto& e : events) boxes += e["ph"] == "X";
  EXPECT_GT(boxes, 0);
  EXPECT_TRUE(contains(trace.err, "overlap: PASSED"));
  EXPECT_FALSE(fs::exists(folder / "-"));
}

TEST(Output, ASymbolicLinkIsWrittenThroughAndStaysALink) {
  const TempFolder folder;
  fs::create_directory(folder / "runs");
  const std::string dated = folder / "runs/2026-11-25.json";
  write_file_atomically(dated, "the previous results\n");
  fs::create_symlink("runs/2026-11-25.json", folder / "latest.json");  // relative, from the link's folder
  const Outcome o = ferry(quick_link({"--json", folder / "latest.json"}));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(type_of(folder / "latest.json"), fs::file_type::symlink) << "the link was replaced";
  EXPECT_EQ(fs::read_symlink(folder / "latest.json"), "runs/2026-11-25.json");
  EXPECT_EQ(nlohmann::json::parse(read_file(dated))["schema"], "ferry.results/1") << "the link's target holds them";

  // A dangling link: its target is created, the link stays.
  fs::create_symlink(folder / "runs/new.json", folder / "next.json");
  const Outcome dangling = ferry(quick_link({"--json", folder / "next.json"}));
  ASSERT_EQ(dangling.code, 0) << dangling.err;
  EXPECT_EQ(type_of(folder / "next.json"), fs::file_type::symlink);
  EXPECT_EQ(nlohmann::json::parse(read_file(folder / "runs/new.json"))["schema"], "ferry.results/1");

  // One whose target's folder does not exist is refused before the run, naming both.
  fs::create_symlink("gone/r.json", folder / "broken.json");
  const Outcome broken = ferry(quick_link({"--json", folder / "broken.json"}));
  EXPECT_EQ(broken.code, 2) << broken.err;
  EXPECT_TRUE(contains(broken.err, "cannot write '" + (folder / "broken.json") + "'")) << broken.err;
  EXPECT_TRUE(contains(broken.err, "it links to")) << broken.err;
  EXPECT_EQ(type_of(folder / "broken.json"), fs::file_type::symlink);
  EXPECT_EQ(broken.out, "");
}

TEST(Output, AFifoIsWrittenInPlaceAndItsReaderGetsTheWholeResults) {
  const TempFolder folder;
  const std::string fifo = folder / "results.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  FifoReader reader(fifo);
  const Outcome o = ferry(quick_link({"--json", fifo}));
  const std::string read = reader.finish();
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(reader.ends(), 1) << "one writer, the results: the check before the run did not open the FIFO";
  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(read)) << "the reader got " << read.size() << " bytes";
  EXPECT_EQ(doc["workloads"][0]["verification"], "PASSED");
  EXPECT_EQ(type_of(fifo), fs::file_type::fifo) << "the FIFO was replaced";
  EXPECT_TRUE(contains(o.out, "link: PASSED"));
}

TEST(Output, AReaderThatClosesItsPipeEarlyIsExitThreeWithTheResultsKept) {
  const TempFolder folder;
  const std::string fifo = folder / "head.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  FifoReader reader(fifo, 100);  // `| head -c 100`
  const Outcome o = ferry(quick_link({"--json", fifo}));
  reader.finish();
  EXPECT_EQ(o.code, 3) << o.err;
  EXPECT_TRUE(contains(o.err, "cannot write '" + fifo + "': Broken pipe")) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one message: " << o.err;
  const std::string fallback = fallback_named_in(o.err);
  ASSERT_NE(fallback, "") << o.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(fallback))["workloads"][0]["verification"], "PASSED");
  fs::remove(fallback);
  EXPECT_EQ(type_of(fifo), fs::file_type::fifo);
}

TEST(Output, TheCheckBeforeTheRunWaitsForNothingAndLeavesEverythingAsItWas) {
  const TempFolder folder;
  const std::string fifo = folder / "results.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  EXPECT_EQ(why_not_writable(fifo), "") << "a FIFO with no reader yet can be written once one comes";
  {
    FifoReader waiting(fifo);
    EXPECT_EQ(why_not_writable(fifo), "");
    waiting.finish();
    EXPECT_EQ(waiting.ends(), 0) << "the check opened the FIFO and ended the input of the reader waiting on it";
  }
  EXPECT_EQ(type_of(fifo), fs::file_type::fifo);
  EXPECT_EQ(why_not_writable("-"), "");

  // A file that happens to have the name of the temporary file is neither emptied nor removed.
  const std::string json = folder / "r.json";
  const std::string bystander = fmt::format("{}.tmp.{}", json, ::getpid());
  write_file_atomically(bystander, "someone else's file\n");
  EXPECT_EQ(why_not_writable(json), "");
  const Outcome o = ferry(quick_link({"--json", json}));
  EXPECT_EQ(o.code, 0) << o.err;
  ASSERT_TRUE(fs::exists(bystander)) << "the check or the write removed a file that was not its own";
  EXPECT_EQ(read_file(bystander), "someone else's file\n");
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(folder.path())) left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"r.json", "r.json.tmp." + std::to_string(::getpid()), "results.fifo"}));
}

// A character device node in the test's folder, a copy of one of the machine's (same major and minor): only root
// may make one.
std::string device_copy(const TempFolder& folder, const char* name, unsigned major, unsigned minor, std::string& why) {
  const std::string path = folder / name;
  if (::geteuid() != 0) {
    why = "making a device node (mknod) needs root, and this test runs as another user";
    return "";
  }
  if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(major, minor)) != 0) {
    why = std::string("mknod is refused here (a container without CAP_MKNOD?): ") + std::strerror(errno);
    return "";
  }
  return path;
}

TEST(Output, ACopyOfDevNullIsWrittenAndStaysACharacterDevice) {
  const TempFolder folder;
  std::string why;
  const std::string null = device_copy(folder, "null", 1, 3, why);
  if (null.empty()) GTEST_SKIP() << why;
  const Outcome o = ferry(quick_link({"--json", null}));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(type_of(null), fs::file_type::character) << "the device node was replaced by a regular file";
  EXPECT_EQ(std::distance(fs::directory_iterator(folder.path()), fs::directory_iterator()), 1);
}

TEST(Output, ACopyOfDevFullIsExitThreeNamingThePathAndTheResultsAreKept) {
  const TempFolder folder;
  std::string why;
  const std::string full = device_copy(folder, "full", 1, 7, why);
  if (full.empty()) GTEST_SKIP() << why;
  const Outcome o = ferry(quick_link({"--json", full}));
  EXPECT_EQ(o.code, 3) << o.err;
  EXPECT_TRUE(contains(o.err, "cannot write '" + full + "': No space left on device")) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "one message: " << o.err;
  EXPECT_EQ(type_of(full), fs::file_type::character) << "the device node was replaced by a regular file";
  const std::string fallback = fallback_named_in(o.err);
  ASSERT_NE(fallback, "") << o.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(fallback))["workloads"][0]["verification"], "PASSED");
  fs::remove(fallback);
}

TEST(Output, ASocketIsRefusedBeforeTheRunAndLeftAsItIs) {
  const TempFolder folder;
  const std::string socket_path = folder / "s.sock";
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0) << std::strerror(errno);
  const Outcome o = ferry(quick_link({"--json", socket_path}));
  ::close(s);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_TRUE(contains(o.err, "cannot write '" + socket_path + "': it is a socket")) << o.err;
  EXPECT_EQ(o.out, "") << "measured before refusing";
  EXPECT_EQ(type_of(socket_path), fs::file_type::socket);
}

}  // namespace
}  // namespace ferry
