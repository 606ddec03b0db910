#pragma once
// `ferry doctor --prometheus FILE`: the findings in Prometheus' text format,
// for node_exporter's textfile collector. Labels are dcgm-exporter's where it
// has one (gpu, UUID, Hostname), so a dashboard joins them with its gauges.
#include <string>
#include <vector>

#include "core/machine.hpp"
#include "doctor/finding.hpp"

namespace ferry::doctor {

// Every finding's verdict (0 OK, 1 WARN, 2 FAIL, -1 not judged) and, where it is a figure, the figure and what it
// was held against, in base units; the count of each verdict; and when the run ended (`unix_seconds`). A subject
// that names a GPU ("GPU 0") carries its index and UUID; a pair ("GPU 0 -> 1") its second GPU's as peer_gpu and
// peer_UUID.
std::string prometheus_text(const std::vector<Finding>& findings, const Machine& machine, double unix_seconds);

}  // namespace ferry::doctor
