#pragma once
// What a run produced, as plain data: workloads fill it, core/ renders it as a
// text table, JSON and CSV. Nothing here knows how a figure was measured.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/machine.hpp"
#include "core/stats.hpp"

namespace ferry {

using ParamValue = std::variant<std::int64_t, double, std::string>;
// Ordered: a table shows the parameters in the order the workload gave them.
// A key ending in "bytes" is a size; tables print it as "4 KiB".
using Params = std::vector<std::pair<std::string, ParamValue>>;

enum class Metric {
  rate,     // bytes_per_sample / seconds, shown in GB/s; the median is bytes / median time
  latency,  // seconds, shown in us
};

enum class Check { passed, failed, not_applicable };

// Which sample a figure reports. The median, unless its definition says
// otherwise: HPCC b_eff's b(L) is the best of its repetitions.
enum class Headline { median, best };

// Statistics over samples too many to store one by one (a stream's per-chunk
// latencies): computed over every sample, kept instead of them.
struct SampleSummary {
  Stats stats;
  std::uint64_t count = 0;
};

// Rows keep at most this many samples; beyond it, their summary.
constexpr std::size_t kept_samples_limit = 10000;

struct Row {
  std::string section;
  Params params;
  Metric metric = Metric::latency;
  std::vector<double> seconds;  // every timed sample (none when `summary` stands for them)
  std::optional<SampleSummary> summary;
  double bytes_per_sample = 0;  // rate rows: bytes moved in one sample
  Headline headline = Headline::median;
  // A figure computed from other rows (b_eff: a mean of b(L) over sizes), in
  // base units; such a row has no samples of its own.
  std::optional<double> derived;
  std::optional<double> model;  // the model's prediction in the metric's base unit (B/s or s)
  std::string model_basis;      // what the model is, e.g. "PCIe Gen5 x16"
  Check check = Check::not_applicable;
  std::string note;

  bool has_samples() const { return summary || !seconds.empty(); }
  Stats stats() const;  // over every sample; all zero for a derived row without samples
  std::uint64_t sample_count() const;
  // Keeps the samples, or their summary when there are more than kept_samples_limit.
  void set_samples(std::vector<double> samples);
  double value() const;  // the figure in base units (B/s or s): derived, else from the headline sample
  std::optional<double> efficiency() const;  // measured / model, as a rate (a latency's is model / measured)
};

struct Section {
  std::string id;
  std::string title;
  bool in_table = true;  // false: too many rows to read (one per device and size); in the JSON and CSV only
};

struct WorkloadResult {
  std::string workload;
  Params config;
  std::vector<Section> sections;
  std::vector<Row> rows;
  std::vector<std::string> skipped;  // "peer bandwidth: needs 2 devices (--devices 0,1)"
  std::vector<std::string> notes;
  // Judgments rather than measurements (`ferry doctor`): one record per check
  // and subject, in the order they were made. They do not enter passed().
  std::vector<Params> findings;

  bool passed() const;  // no row failed its check
};

// What a run that ended early had done (docs/results.md, "incomplete").
struct Incomplete {
  std::string reason;  // "interrupted by SIGINT", or the error's message
  std::size_t rows_done = 0;
  std::size_t steps_done = 0;     // progress steps begun
  std::size_t steps_planned = 0;  // 0 when no workload had said how many
};

struct Results {
  static constexpr const char* schema = "ferry.results/1";
  std::string ferry_version;
  std::string source_commit;  // the commit of the code that made it ("" when the build could not tell)
  std::string created_utc;
  std::vector<std::string> command_line;
  Machine machine;
  std::vector<WorkloadResult> workloads;
  std::optional<Incomplete> incomplete;  // set only on the rows a run that ended early kept

  bool passed() const;
};

std::string utc_now_iso8601();

}  // namespace ferry
