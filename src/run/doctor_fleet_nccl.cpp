#include "run/doctor_fleet_nccl.hpp"

#include <sstream>

#include "bench/common/exchange_areas.hpp"
#include "transport/transport.hpp"

namespace ferry::doctor {

NcclPairs time_nccl_pairs(Backend& backend, World& world, int device, std::uint64_t bytes, int repetitions,
                          int corrupt_at) {
  NcclPairs out{.bytes = bytes, .messages = 4};
  const int n = world.size(), me = world.rank();
  const std::uint64_t area = static_cast<std::uint64_t>(out.messages) * transport::slot_pitch(bytes);
  std::ostringstream mine;  // "pair seconds..." as the receiver, then "pair intact 0|1"
  mine.precision(17);
  for (int k = 0; k < n; ++k) {          // with 2 ranks: 0 -> 1 and 1 -> 0
    const int index = (me - k + n) % n;  // the sender of this pair is participant 0, its receiver 1
    ExchangeAreas areas(backend, {device}, index, n, area, bytes);
    if (k == 0) {
      out.skipped = transport::unavailable_anywhere(transport::Kind::nccl, backend, world, areas.group());
      if (!out.skipped.empty()) return out;
    }
    const std::unique_ptr<transport::Transport> nccl =
        transport::open(transport::Kind::nccl, backend, world, areas.group(), {});
    const transport::ExchangePlan plan =
        transport::make_plan(transport::Pattern::one_way, n, bytes, out.messages, area);
    areas.fill_send(plan);
    std::vector<double> seconds;
    std::uint64_t wrong = 0;
    for (int r = 0; r <= repetitions; ++r) {
      areas.poison_receive(plan);
      world.barrier();
      const double s = nccl->run(plan).front();
      if (index == 1) {
        if (me == corrupt_at) areas.corrupt_one_byte(plan);
        wrong += areas.wrong_words(plan, 0);
        if (r > 0) seconds.push_back(s);  // the first warms NCCL's connection between the two
      }
    }
    if (index == 1) {
      mine << k;
      for (double s : seconds) mine << ' ' << s;
      mine << '\n' << k << " intact " << (wrong == 0 ? 1 : 0) << '\n';
    }
  }
  mine << "host " << world.host() << '\n';
  const std::vector<std::string> texts = world.gather(mine.str());
  if (me != 0) return out;
  std::vector<std::string> hosts(static_cast<std::size_t>(n));
  const int pairs = n;
  out.pairs.resize(static_cast<std::size_t>(pairs));
  for (std::size_t rank = 0; rank < texts.size(); ++rank) {
    std::istringstream lines(texts[rank]);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string first;
      words >> first;
      if (first == "host") {
        words >> hosts[rank];
        continue;
      }
      transport::PairTime& t = out.pairs.at(static_cast<std::size_t>(std::stoi(first)));
      if (line.find(" intact ") != std::string::npos) {
        std::string word;
        int intact = 0;
        words >> word >> intact;
        t.intact = intact == 1;
      } else {
        for (double s; words >> s;) t.seconds.push_back(s);
      }
    }
  }
  for (int k = 0; k < pairs; ++k) {
    transport::PairTime& t = out.pairs[static_cast<std::size_t>(k)];
    t.from = k;
    t.to = (k + 1) % n;
    t.from_host = hosts[static_cast<std::size_t>(t.from)];
    t.to_host = hosts[static_cast<std::size_t>(t.to)];
  }
  return out;
}

}  // namespace ferry::doctor
