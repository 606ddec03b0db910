#include "bench/beff/messages.hpp"

#include "backend/launch.hpp"
#include "bench/common/verify.hpp"

namespace ferry::beff {

static_assert(CountWrongWords::poison_value == poison_byte, "a receive slot is poisoned with verify.hpp's byte");

void enqueue_fill(Stream& stream, unsigned char* area, const ExchangePlan& plan, int sender) {
  parallel_for(stream, area_words(plan), FillMessages{area, plan, sender});
}

void enqueue_count_wrong(Stream& stream, const unsigned char* area, const ExchangePlan& plan, int receiver,
                         unsigned long long* mismatches) {
  parallel_for(stream, area_words(plan), CountWrongWords{area, plan, receiver, mismatches});
}

}  // namespace ferry::beff
