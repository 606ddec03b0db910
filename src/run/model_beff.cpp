#include "run/model_beff.hpp"

#include <fmt/format.h>

#include <memory>
#include <sstream>
#include <string_view>

#include "backend/select.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/source_commit.hpp"
#include "core/units.hpp"
#include "model/beff_model.hpp"
#include "run/beff_prediction.hpp"
#include "run/run_results.hpp"

namespace ferry {
namespace {

// Begins every line printed of a prediction from a file that failed verification.
constexpr std::string_view failed_input_marker = "[FAILED input] ";

// "12.5 GB/s", "6.25 MB/s": three figures, in MB/s below 1 GB/s (a link a test limits).
std::string rate_in_figures(double Bps) {
  return Bps < 1e9 ? fmt::format("{:.3g} MB/s", Bps / 1e6) : fmt::format("{:.3g} GB/s", to_GBps(Bps));
}

// The network's figures as the note gives them: the values used, and where they came from.
NetworkHop given_network(const ModelBeffOptions& o) {
  const model::LinkTerms network{parse_duration(o.network_latency), parse_rate(o.network_bandwidth)};
  const bool default_bandwidth = network.bandwidth_Bps == parse_rate(default_network_bandwidth);
  const bool default_latency = network.latency_s == parse_duration(default_network_latency);
  const std::string bandwidth = default_bandwidth
                                    ? fmt::format("{:.3g} GB/s a direction, the default: one 400 Gb/s NIC per GPU",
                                                  to_GBps(network.bandwidth_Bps))
                                    : fmt::format("{} a direction from --network-bandwidth {}",
                                                  rate_in_figures(network.bandwidth_Bps), o.network_bandwidth);
  const std::string latency = default_latency ? fmt::format("{:.3g} us a hop, the default", to_us(network.latency_s))
                                              : fmt::format("{:.3g} us a hop from --network-latency {}",
                                                            to_us(network.latency_s), o.network_latency);
  return {network, bandwidth + ", and " + latency, default_bandwidth && default_latency ? "default" : "given"};
}

// A results file given beside --profile (--network, --measured): one whose data arrived wrong, or that a run
// left early, is refused; those are for --profile alone to model with a marker.
model::TransportTerms read_ring(const std::string& path, const char* option) {
  model::TransportTerms ring = model::read_transport_terms(path);
  if (!ring.input_passed())
    throw UsageError(fmt::format("{} '{}' failed verification: {}. Rerun `ferry run beff --json`", option, path,
                                 failures_in_words(ring)));
  if (!ring.incomplete.empty())
    throw UsageError(fmt::format("{} '{}' is incomplete: the run that wrote it ended early ({}). Rerun `ferry run "
                                 "beff --json`",
                                 option, path, ring.incomplete));
  if (ring.participant_hosts.size() < 2 || ring.devices < 2)
    throw UsageError(fmt::format("{} '{}' names no ring's hosts: give the results of `mpirun ... ferry run beff "
                                 "--json`",
                                 option, path));
  return ring;
}

// The hop between nodes per transport, from a ring whose every hop crosses hosts (one rank a host).
std::vector<std::pair<std::string, NetworkHop>> measured_network(const std::string& path) {
  const model::TransportTerms ring = read_ring(path, "--network");
  const std::vector<std::string>& hosts = ring.participant_hosts;
  for (std::size_t p = 0; p < hosts.size(); ++p) {
    const std::size_t right = (p + 1) % hosts.size();
    if (hosts[p].empty() || hosts[p] == hosts[right])
      throw UsageError(fmt::format("--network '{}': participants {} and {} of its ring are on one host ({}), so not "
                                   "every hop crosses the network: give a ring of one rank a host (mpirun --map-by "
                                   "node)",
                                   path, p, right, hosts[p].empty() ? "not named" : hosts[p]));
  }
  std::vector<std::pair<std::string, NetworkHop>> hops;
  for (const model::TransportModel& m : ring.transports) {
    const model::LinkTerms terms = model::hop_terms(m);
    hops.push_back({m.transport,
                    {terms,
                     fmt::format("measured across hosts in {}, a ring of {} on {}: {} a direction and {:.4g} us a "
                                 "hop (t_lat of its smallest size, B of its largest: {})",
                                 path, ring.devices, model::ring_hosts_in_words(ring), rate_text(terms.bandwidth_Bps),
                                 to_us(terms.latency_s), m.segments.front().basis),
                     "measured"}});
  }
  return hops;
}

// Every non-empty line begins with the marker, and the status line, which says
// only that no prediction row failed, says what the prediction rests on instead.
std::string marked_as_failed_input(const std::string& text, const std::string& status_line,
                                   const std::string& status_instead) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool ends_line = end != std::string::npos;
    if (!ends_line) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (!line.empty()) out += std::string(failed_input_marker) + (line == status_line ? status_instead : line);
    if (ends_line) out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace

int model_beff(const ModelBeffOptions& o, const std::vector<std::string>& command_line, std::ostream& out) {
  std::vector<int> rings;
  for (std::uint64_t n : parse_count_range(o.devices, "--devices")) {
    if (n < 2 || n > (1u << 20)) throw UsageError(fmt::format("--devices: a ring has 2 to 1048576 devices, not {}", n));
    rings.push_back(static_cast<int>(n));
  }
  const int per_node = parse_positive_int(o.per_node, "--per-node");
  LargerRings larger;
  larger.devices = rings;
  larger.per_node = per_node;
  larger.network = given_network(o);
  if (!o.network_path.empty()) {
    larger.measured_network = measured_network(o.network_path);
    larger.measured_network_origin = o.network_path;
  }
  model::TransportTerms measured;
  if (!o.measured_path.empty()) {
    measured = read_ring(o.measured_path, "--measured");
    larger.measured = &measured;
  }

  model::TransportTerms terms;
  Results results;
  bool input_passed = true;
  if (!o.profile_path.empty()) {
    terms = model::read_transport_terms(o.profile_path);
    input_passed = checked("model.input", terms.input_passed());
    if (!input_passed && !o.allow_failed)
      throw UsageError(fmt::format("'{}' failed verification, so its terms may rest on data that arrived wrong: {}. "
                                   "Rerun `ferry run beff --json`, or give --allow-failed to model it anyway",
                                   o.profile_path, failures_in_words(terms)));
    // Such a file may lack whole transports or sizes.
    if (!terms.incomplete.empty() && !o.allow_incomplete)
      throw UsageError(fmt::format("'{}' is incomplete: the run that wrote it ended early ({}), so its terms may miss "
                                   "transports or sizes. Rerun `ferry run beff --json`, or give --allow-incomplete to "
                                   "model it anyway",
                                   o.profile_path, terms.incomplete));
    results.machine.backend = "model";
  } else {
    // No file: measure this machine's terms with a quick beff run first.
    const std::unique_ptr<Backend> backend = make_backend(o.backend);
    if (backend->device_count() < 2)
      throw UsageError(fmt::format("without --profile, `ferry model beff` measures this machine's terms with a quick "
                                   "beff run, which needs 2 or more devices and this machine has {}: give --profile "
                                   "FILE, the results of `ferry run beff --json FILE` on a machine with two (or of "
                                   "mpirun -np 2 ferry run beff)",
                                   backend->device_count()));
    results = start_results(*backend, command_line, out);
    terms = measure_transport_terms(*backend, results, o.quiet);
  }
  results.ferry_version = FERRY_VERSION;
  results.source_commit = source_commit();
  results.created_utc = utc_now_iso8601();
  results.command_line = command_line;

  WorkloadResult prediction = predict_larger_rings(terms, larger, input_passed ? "" : o.profile_path);
  if (!terms.incomplete.empty())
    prediction.notes.insert(prediction.notes.begin(),
                            fmt::format("incomplete input, modelled with --allow-incomplete: '{}' ({}): its terms may "
                                        "miss transports or sizes",
                                        o.profile_path, terms.incomplete));
  const std::string status_line = prediction.workload + ": PASSED";
  const std::string status_instead =
      fmt::format("{}: predicted from FAILED input ('{}': {} failed verification), not a clean prediction",
                  prediction.workload, o.profile_path,
                  terms.failed_rows.empty()
                      ? std::string("its run")
                      : fmt::format("{} row{}", terms.failed_rows.size(), terms.failed_rows.size() == 1 ? "" : "s"));
  results.workloads.push_back(std::move(prediction));
  OutputPaths written;
  written.json_path = o.json_path;
  if (input_passed) return finish_run(results, written, out);

  std::ostringstream printed;
  const auto flush_marked = [&] { out << marked_as_failed_input(printed.str(), status_line, status_instead); };
  try {
    const int code = finish_run(results, written, printed);
    flush_marked();
    return code;
  } catch (...) {
    flush_marked();
    throw;
  }
}

}  // namespace ferry
