#include "run/run_results.hpp"

#include <fmt/format.h>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/results_json.hpp"
#include "core/source_commit.hpp"
#include "core/table.hpp"
#include "core/text.hpp"
#include "run/standard_output.hpp"

namespace ferry {

Results start_results(Backend& backend, const std::vector<std::string>& command_line, std::ostream& out) {
  Results results;
  results.ferry_version = FERRY_VERSION;
  results.source_commit = source_commit();
  results.created_utc = utc_now_iso8601();
  results.command_line = command_line;
  results.machine = backend.describe_machine();
  out << render_banner(results.machine) << std::flush;
  return results;
}

int finish_run(Results& results, const OutputPaths& paths, std::ostream& out) {
  for (const WorkloadResult& w : results.workloads) out << render_workload(w);
  write_outputs(results, paths, out);
  return results.passed() ? static_cast<int>(ExitCode::ok) : static_cast<int>(ExitCode::verification_failed);
}

void write_outputs(const Results& results, const OutputPaths& paths, std::ostream& out) {
  // Both files are rendered before either is written, so a failure leaves neither half done.
  const std::string json = paths.json_path.empty() ? "" : results_to_json(results);
  const std::string csv = paths.csv_path.empty() ? "" : results_to_csv(results);
  std::vector<std::string> unsaved;
  const auto save = [&](const std::string& path, const std::string& content, const char* what) {
    if (path.empty()) return;
    if (std::string why = save_output(path, content, what, out); !why.empty()) unsaved.push_back(why);
  };
  save(paths.json_path, json, "results");
  save(paths.csv_path, csv, "rows");
  if (!unsaved.empty()) throw RuntimeFailure(join(unsaved, "; ", [](const std::string& s) { return s; }));
}

std::string save_output(const std::string& path, const std::string& content, const std::string& what,
                        std::ostream& out) {
  // The path was writable when the run began; one that is not now (a full disk, a folder removed meanwhile, a
  // reader gone from a pipe) sends the file to the temporary folder, and the message names both.
  try {
    write_output(path, content, standard_output());
    out << what << ": " << (path == "-" ? "standard output" : path) << "\n";
    return "";
  } catch (const RuntimeFailure& e) {
    const char* are = what.back() == 's' ? "are" : "is";  // "the results are", "the trace is"
    try {
      return fmt::format("{}; the {} {} in '{}' instead", e.what(), what, are, write_fallback(path, content));
    } catch (const RuntimeFailure& fallback) {
      return fmt::format("{}; nor could the {} be kept in the temporary folder: {}", e.what(), what, fallback.what());
    }
  }
}

}  // namespace ferry
