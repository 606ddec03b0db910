#pragma once
// A workload's options that set fields of its config. The config's defaults
// are known only once the backend has started (the emulator's and --quick's
// differ), so an option keeps its text until then: apply() parses the text of
// each option given into its field, in the order the options were added.
#include <CLI/CLI.hpp>
#include <deque>
#include <functional>
#include <string>

namespace ferry {

template <class Config>
class ConfigOptions {
 public:
  // Parses an option's text into the config, or throws UsageError naming the option.
  using Setter = std::function<void(Config& config, const std::string& text)>;

  ConfigOptions() = default;
  ConfigOptions(const ConfigOptions&) = delete;  // the parser holds where each text goes
  ConfigOptions& operator=(const ConfigOptions&) = delete;

  // `name TEXT` on `command`, described as `description`; `set` sets the config from its text.
  CLI::Option* add(CLI::App& command, const std::string& name, const std::string& description, Setter set) {
    Given& given = options_.emplace_back(Given{{}, std::move(set)});
    return command.add_option(name, given.text, description);
  }

  // Sets the fields of the options given; an empty text leaves the default.
  void apply(Config& config) const {
    for (const Given& given : options_)
      if (!given.text.empty()) given.set(config, given.text);
  }

 private:
  struct Given {
    std::string text;
    Setter set;
  };
  std::deque<Given> options_;  // a deque keeps each text where the parser writes it
};

}  // namespace ferry
