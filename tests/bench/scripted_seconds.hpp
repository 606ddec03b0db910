#pragma once
// A transport that moves every message as the one it wraps does (so every
// exchange arrives and is checked), but answers the seconds a test scripts:
// which participant's time and which repetition or round a figure takes is
// then a fact the test can assert, whatever the machine's speed.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "transport/transport.hpp"

namespace ferry {

class ScriptedSeconds : public transport::Transport {
 public:
  // run() call k answers script[k]: one seconds per local participant, in Group::local's order.
  ScriptedSeconds(std::unique_ptr<transport::Transport> moving, std::vector<std::vector<double>> script)
      : moving_(std::move(moving)), script_(std::move(script)) {}
  transport::Kind kind() const override { return moving_->kind(); }
  transport::Clock clock() const override { return moving_->clock(); }
  std::string how(std::uint64_t bytes) const override { return moving_->how(bytes); }
  void prepare(const transport::ExchangePlan& plan) override { moving_->prepare(plan); }
  std::vector<double> run(const transport::ExchangePlan& plan) override {
    moving_->run(plan);
    return script_.at(calls_++);
  }
  std::size_t calls() const { return calls_; }

 private:
  std::unique_ptr<transport::Transport> moving_;
  std::vector<std::vector<double>> script_;
  std::size_t calls_ = 0;
};

// The script's values, given in microseconds, in seconds.
inline std::vector<std::vector<double>> in_us(std::vector<std::vector<double>> values) {
  for (auto& call : values)
    for (double& s : call) s *= 1e-6;
  return values;
}

}  // namespace ferry
