#pragma once
// The ncclSend and ncclRecv calls one participant issues for one exchange of
// a plan, in the order NCCL gets them: every route's send, then its receive,
// each at the exchange's slot. Apart from NCCL, so that what ferry asks of
// NCCL is tested where there is none.
#include <cstdint>
#include <vector>

#include "transport/exchange_plan.hpp"

namespace ferry::transport {

struct NcclCall {
  enum class Op { send, recv } op = Op::send;
  int peer = 0;              // the participant (NCCL rank) sent to or received from
  std::uint64_t offset = 0;  // into the participant's send area (send) or receive area (recv)
  std::uint64_t bytes = 0;

  bool operator==(const NcclCall&) const = default;
};

inline std::vector<NcclCall> nccl_calls(const ExchangePlan& plan, int participant, std::int64_t exchange) {
  std::vector<NcclCall> calls;
  for (int k = 0; k < plan.fan(); ++k) {
    const Route route = plan.route(participant, exchange, k);
    const std::uint64_t at = plan.offset(exchange, k);
    if (route.send_to >= 0) calls.push_back({NcclCall::Op::send, route.send_to, at, plan.bytes});
    if (route.receive_from >= 0) calls.push_back({NcclCall::Op::recv, route.receive_from, at, plan.bytes});
  }
  return calls;
}

}  // namespace ferry::transport
