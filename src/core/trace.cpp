#include "core/trace.hpp"

#include <nlohmann/json.hpp>

namespace ferry {

std::string trace_to_json(const Trace& trace) {
  using nlohmann::ordered_json;
  ordered_json events = ordered_json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", trace.process}}}});
  for (std::size_t i = 0; i < trace.lanes.size(); ++i) {
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", i}, {"args", {{"name", trace.lanes[i]}}}});
    // Lanes in their own order, not by name.
    events.push_back(
        {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", i}, {"args", {{"sort_index", i}}}});
  }
  // Trace Event times are microseconds.
  for (const TraceBox& b : trace.boxes)
    events.push_back({{"name", b.name},
                      {"cat", b.category},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", b.lane},
                      {"ts", b.start_s * 1e6},
                      {"dur", b.duration_s * 1e6}});
  return ordered_json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

}  // namespace ferry
