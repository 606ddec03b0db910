#include "doctor/measure/fleet_nccl.hpp"

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
  out.pairs = transport::gather_pair_times(world, mine.str());
  return out;
}

}  // namespace ferry::doctor
