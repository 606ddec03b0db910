#pragma once
// ferry's errors: each carries the message a user sees and the exit code the CLI returns.
#include <stdexcept>
#include <string>

namespace ferry {

enum class ExitCode : int {
  ok = 0,
  verification_failed = 1,  // a run finished but some data arrived wrong
  bad_input = 2,            // the user asked for something ferry cannot do
  runtime_failure = 3,      // a backend, driver or file call failed
  target_not_met = 4,       // `ferry tune`: every configuration passed, none met the target
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad input: an unknown name, a malformed size, a device that does not exist...
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(ExitCode::bad_input, message) {}
};

// A call into a backend, driver, library or the file system failed.
class RuntimeFailure : public Error {
 public:
  explicit RuntimeFailure(const std::string& message) : Error(ExitCode::runtime_failure, message) {}
};

}  // namespace ferry
