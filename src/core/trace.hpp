#pragma once
// Timelines as Chrome traces (the JSON Trace Event format), which Perfetto and
// chrome://tracing open: one lane per queue, one box per operation.
#include <string>
#include <vector>

namespace ferry {

struct TraceBox {
  int lane = 0;
  std::string name;      // "H2D a[3]"
  std::string category;  // "copy", "kernel": Perfetto can colour and filter by it
  double start_s = 0;    // from the trace's origin
  double duration_s = 0;
};

struct Trace {
  std::string process;             // the trace's one process, e.g. "ferry overlap, device 0"
  std::vector<std::string> lanes;  // lane i's name
  std::vector<TraceBox> boxes;
};

std::string trace_to_json(const Trace& trace);

}  // namespace ferry
