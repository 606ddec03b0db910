#include "bench/common/messages.hpp"

#include "backend/launch.hpp"
#include "bench/common/verify.hpp"

namespace ferry {

static_assert(CountWrongWords::poison_value == poison_byte, "a receive slot is poisoned with verify.hpp's byte");

void enqueue_fill(Stream& stream, unsigned char* area, const ExchangePlan& plan, int sender, std::uint64_t round) {
  parallel_for(stream, area_words(plan), FillMessages{area, plan, sender, round});
}

void enqueue_count_wrong(Stream& stream, const unsigned char* area, const ExchangePlan& plan, int receiver,
                         std::uint64_t round, unsigned long long* mismatches) {
  parallel_for(stream, area_words(plan), CountWrongWords{area, plan, receiver, round, mismatches});
}

}  // namespace ferry
