#include "sim/network.h"

namespace qdt::sim {

impl::PushResponse Network::call(impl::Broker& broker, const nlohmann::json& request, uint64_t request_id) {
  clock_.sleep_for(latency_ms());
  trace_.begin(clock_.now_ms(), "deliver").field("req", static_cast<int64_t>(request_id)).field("b", broker.id()).end();
  impl::PushResponse response = broker.push(request, request_id);
  trace_.begin(clock_.now_ms(), "respond").field("req", static_cast<int64_t>(request_id)).end();
  clock_.sleep_for(latency_ms());
  return response;
}

}  // namespace qdt::sim
