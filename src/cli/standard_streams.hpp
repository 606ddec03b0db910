#pragma once
// The process's standard streams as ferry uses them. A table sent to a full
// disk (`ferry run link > /full/log`) or a closed standard output is exit 3
// with the cause, not an empty log and exit 0; a closed standard error loses
// the messages but not the run or its results file.
#include <streambuf>
#include <string>

namespace ferry {

// Puts /dev/null on each of descriptors 0, 1 and 2 that is closed, so that no
// file ferry opens later takes the number (a results file opened as
// descriptor 2 would take the progress lines). Returns whether 1 was closed.
bool keep_standard_descriptors_open();

// Writes to a descriptor, each write checked: the first failure's cause is
// kept, and every write from then on fails, so the stream that uses it
// reports failure too (an output option given `-` then keeps its file in the
// temporary folder).
class CheckedOutput : public std::streambuf {
 public:
  // `closed`: the descriptor was closed when ferry started, so nothing written to it can arrive.
  CheckedOutput(int fd, bool closed);
  ~CheckedOutput() override;
  CheckedOutput(const CheckedOutput&) = delete;
  CheckedOutput& operator=(const CheckedOutput&) = delete;

  // Why a write failed ("No space left on device"), "" while none has.
  const std::string& failure() const { return failure_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool flush_buffer();

  int fd_;
  std::string failure_;
  char buffer_[1 << 16];
};

}  // namespace ferry
