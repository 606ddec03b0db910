// `ferry list` names everything each workload can run, as its option takes
// the name, read from the tables the workload runs from: a design, rung,
// transport, topology or section added to a workload appears there at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "bench/dispatch/dispatch_ladder.hpp"
#include "bench/link/link.hpp"
#include "bench/stream/stream.hpp"
#include "bench/topo/topo.hpp"
#include "cli/run_ferry.hpp"
#include "core/text.hpp"
#include "transport/transport.hpp"

namespace ferry {
namespace {

// "NAME (--option): a, b, c" lines of each workload's entry: workload -> NAME (--option) -> names.
using Listed = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

Listed listed_by_workload(const std::string& text) {
  Listed listed;
  std::istringstream lines(text);
  std::string line, workload;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (line.front() != ' ') {
      workload = line.substr(0, line.find(' '));
      continue;
    }
    const std::size_t start = line.find_first_not_of(' ');
    const std::size_t colon = line.find(": ", start);
    if (colon == std::string::npos || line.compare(start, 9, "measures:") == 0) continue;
    std::vector<std::string> names;
    for (std::string_view name : split(std::string_view(line).substr(colon + 2), ','))
      names.emplace_back(name.substr(name.find_first_not_of(' ')));
    listed[workload][line.substr(start, colon - start)] = names;
  }
  return listed;
}

Listed list() {
  const Outcome o = ferry({"list"});
  EXPECT_EQ(o.code, 0) << o.err;
  return listed_by_workload(o.out);
}

TEST(List, NamesEveryDesignStreamCanRun) {
  std::vector<std::string> designs;
  for (stream::Design d : stream::all_designs()) designs.emplace_back(stream::to_string(d));
  const std::vector<std::string> shown = list()["stream"]["designs (--design)"];
  EXPECT_EQ(shown, designs);
  for (const std::string& name : shown) EXPECT_NO_THROW(stream::design_from_string(name)) << name;
}

TEST(List, NamesEveryRungOfDispatchsLadder) {
  std::vector<std::string> rungs;
  for (dispatch::Rung r : dispatch::ladder) rungs.emplace_back(dispatch::plan(r).name);
  const std::vector<std::string> shown = list()["dispatch"]["rungs (--rungs)"];
  EXPECT_EQ(shown, rungs);
  for (const std::string& name : shown) EXPECT_NO_THROW(dispatch::parse_rung(name)) << name;
}

TEST(List, NamesEveryTransportOfBeffAndEveryTopologyAndDirectTransportOfTopo) {
  Listed listed = list();
  std::vector<std::string> transports, direct, topologies;
  for (transport::Kind k : transport::all_kinds()) {
    transports.emplace_back(transport::to_string(k));
    if (!transport::through_host(k)) direct.emplace_back(transport::to_string(k));
  }
  for (topo::Topology t : topo::all_topologies()) topologies.emplace_back(topo::to_string(t));
  EXPECT_EQ(listed["beff"]["transports (--transport)"], transports);
  EXPECT_EQ(listed["topo"]["topologies (--topology)"], topologies);
  EXPECT_EQ(listed["topo"]["direct transports (--transport)"], direct);
  for (const std::string& name : listed["topo"]["topologies (--topology)"])
    EXPECT_NO_THROW(topo::parse_topologies(name)) << name;
}

TEST(List, NamesEverySectionOfLinksTables) {
  const std::vector<std::string> shown = list()["link"]["sections (its tables)"];
  std::vector<std::string> sections;
  for (const Section& s : link::sections()) sections.push_back(s.id);
  EXPECT_EQ(shown, sections);
  // Every section the fault hook may name is one of them.
  for (const std::string& checked : link::checked_sections)
    EXPECT_NE(std::find(shown.begin(), shown.end(), checked), shown.end()) << checked;
}

}  // namespace
}  // namespace ferry
