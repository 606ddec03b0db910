#include "core/progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ferry {
namespace {

// What a Progress wrote, read back from a temporary file.
class Captured {
 public:
  Captured() : file_(std::tmpfile()) {}
  ~Captured() { std::fclose(file_); }
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    std::rewind(file_);
    std::string out;
    for (int c; (c = std::fgetc(file_)) != EOF;) out += static_cast<char>(c);
    return out;
  }

 private:
  std::FILE* file_;
};

TEST(Progress, OffATerminalEachStepIsThePlainLineLogsHadBefore) {
  Captured out;
  {
    const Progress progress("link", Progress::Output::lines, out.file());
    progress.expect(2);
    progress.step("device 0: grid barrier");
    progress.step("device 0: kernel launch and sync");
  }
  EXPECT_EQ(out.text(), "[link] device 0: grid barrier\n[link] device 0: kernel launch and sync\n");
}

TEST(Progress, OnATerminalOneLineRewritesItselfWithTheCountAndIsClearedAtTheEnd) {
  Captured out;
  {
    const Progress progress("stream", Progress::Output::terminal, out.file());
    progress.expect(3);
    progress.step("first");
    progress.step("second");
    progress.step("third");
    EXPECT_EQ(progress.steps_taken(), 3u);
  }
  const std::string text = out.text();
  EXPECT_EQ(text.find('\n'), std::string::npos) << "a terminal line never scrolls";
  EXPECT_NE(text.find("\r\x1b[K[stream] 1/3: first"), std::string::npos) << text;
  EXPECT_NE(text.find("[stream] 2/3, "), std::string::npos) << "from the second step on, the time left: " << text;
  EXPECT_NE(text.find(" left: second"), std::string::npos) << text;
  EXPECT_NE(text.find("[stream] 3/3, "), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K") << "cleared, so the table starts on a clean line";
}

TEST(Progress, WithoutATotalTheLineCountsStepsAndTheTimeSoFar) {
  Captured out;
  {
    const Progress progress("link", Progress::Output::terminal, out.file());
    progress.step("one");
  }
  EXPECT_NE(out.text().find("[link] 1, 0s so far: one"), std::string::npos) << out.text();
}

TEST(Progress, QuietWritesNothingButStillCounts) {
  Captured out;
  const Progress progress("link", Progress::Output::quiet, out.file());
  progress.expect(4);
  progress.expect_fewer(1);
  progress.step("one");
  EXPECT_EQ(out.text(), "");
  EXPECT_EQ(progress.steps_taken(), 1u);
  EXPECT_EQ(progress.steps_expected(), 3u);
  progress.expect_fewer(10);
  EXPECT_EQ(progress.steps_expected(), 0u) << "never below zero";
}

TEST(Progress, TheTimeLeftIsTheRemainingStepsAtThePaceSoFar) {
  EXPECT_FALSE(seconds_left(5.0, 0, 10)) << "no pace before a step has ended";
  EXPECT_DOUBLE_EQ(*seconds_left(10.0, 2, 10), 40.0);
  EXPECT_DOUBLE_EQ(*seconds_left(10.0, 10, 10), 0.0);
  EXPECT_FALSE(seconds_left(10.0, 11, 10)) << "more steps than expected: no honest estimate";
  EXPECT_EQ(format_time_left(4.4), "4s");
  EXPECT_EQ(format_time_left(65), "1m05s");
  EXPECT_EQ(format_time_left(7380), "2h03m");
  EXPECT_EQ(format_time_left(-1), "0s");
}

}  // namespace
}  // namespace ferry
