#include "sim/world/producer.h"

namespace qdt::sim {

nlohmann::json Producer::prepare(nlohmann::json items) {
  nlohmann::json request = std::move(items);
  if (!request.is_array()) return request;
  for (auto& item : request) {
    if (item.is_object() && !item.contains("transactionId")) {
      static constexpr char kDigits[] = "0123456789abcdef";
      std::string id = "sdk:" + name_ + ":";
      const uint64_t a = rng_.next();
      const uint64_t b = rng_.next();
      for (uint64_t word : {a, b}) {
        for (int shift = 60; shift >= 0; shift -= 4) id.push_back(kDigits[(word >> shift) & 15]);
      }
      item["transactionId"] = id;
    }
  }
  return request;
}

}  // namespace qdt::sim
