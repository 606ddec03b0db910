// libFuzzer target: every parser of what a user types on the command line
// (sizes, ranges, counts, durations, rates, timeouts, device lists, fault
// hooks). The first byte picks the parser, the rest is the text. A parser may
// return or throw ferry's UsageError; anything else (another exception, a
// crash, a sanitizer report, a value that breaks the parser's promise) is a bug.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench/beff/beff.hpp"
#include "bench/stream/stream.hpp"
#include "bench/topo/topo.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "run/run_options.hpp"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

void ascending_and_positive(const std::vector<std::uint64_t>& values) {
  require(!values.empty() && values.size() <= 4096);
  for (std::size_t i = 0; i < values.size(); ++i) require(values[i] > 0 && (i == 0 || values[i - 1] < values[i]));
}

void parse(std::uint8_t which, std::string_view text) {
  using namespace ferry;
  switch (which % 12) {
    case 0: require(parse_bytes(text) > 0); break;
    case 1: ascending_and_positive(parse_byte_range(text)); break;
    case 2: ascending_and_positive(parse_count_range(text, "--keys")); break;
    case 3: require(parse_positive_count(text, "--reps") > 0); break;
    case 4: require(parse_positive_int(text, "--depth") > 0); break;
    case 5: {
      const double x = parse_positive_number(text, "--flops-per-byte");
      require(x > 0 && std::isfinite(x));
      break;
    }
    case 6: require(parse_duration(text) > 0); break;
    case 7: require(parse_rate(text) > 0); break;
    case 8: {
      const double s = parse_timeout(text, "--timeout");
      require(s >= 1e-3 && s <= 86400);
      break;
    }
    case 9: {
      RunOptions options;
      options.devices = std::string(text);
      for (int d : selected_devices(options)) require(d >= 0);
      break;
    }
    case 10: {
      stream::StreamConfig config;
      stream::parse_unseen_flag(text, config);
      require(config.unseen_flag.role >= 0 && config.unseen_flag.role <= config.stages + 1);
      break;
    }
    default: {
      beff::BeffConfig beff;
      beff::parse_rank_exit(text, beff);
      require(beff.exit_rank >= 0 && beff.exit_bytes > 0);
      topo::TopoConfig topo;
      topo::parse_corruption(text, topo);
      require(topo.corrupt_round >= 0 && topo.corrupt_bytes > 0);
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  try {
    parse(data[0], std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  } catch (const ferry::UsageError&) {
    // refused with a message: what bad input must get
  }
  return 0;
}
