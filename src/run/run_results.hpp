#pragma once
// A run's results from start to finish: the banner before any workload, then
// the tables and the files the options named.
#include <ostream>
#include <string>

#include "backend/backend.hpp"
#include "core/results.hpp"

namespace ferry {

// The files a run writes: "" for none, "-" for standard output (run/standard_output.hpp).
struct OutputPaths {
  std::string json_path;
  std::string csv_path;
};

// A run's results before any workload: version, time, command line and the
// machine, whose banner goes to `out` at once.
Results start_results(Backend& backend, const std::vector<std::string>& command_line, std::ostream& out);

// Prints the tables to `out`, writes the JSON and CSV files, and returns the exit
// code for the results. A file that cannot be written now goes to the
// temporary folder, and RuntimeFailure names where.
int finish_run(Results& results, const OutputPaths& paths, std::ostream& out);

// finish_run() without the tables: the JSON and CSV files, both rendered before
// either is written; RuntimeFailure names each that went to the temporary folder.
void write_outputs(const Results& results, const OutputPaths& paths, std::ostream& out);

// Writes the `what` (e.g. "results") to `path` by core/output_file.hpp's
// rules and says where on `out`. Returns "" when written; else a file that
// could not be written goes to the temporary folder, and the message returned
// names the path, the cause and where the file went.
std::string save_output(const std::string& path, const std::string& content, const std::string& what,
                        std::ostream& out);

}  // namespace ferry
