// libFuzzer harness: the broker's push-request validator
// (impl/broker/push_request.h, the rules of docs/semantics.md §2.1 decided before anything is
// stored) on any bytes parsed as qdt parses input. Accepted items are packed
// into frames and read back, as storage would store them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "impl/frames.h"
#include "impl/hash.h"
#include "impl/broker/push_request.h"
#include "sim/fuzz/fuzz_contract.h"
#include "sim/base/json_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using qdt::fuzz::contract_broken;
  const qdt::sim::JsonInput in = qdt::sim::parse_json_input(std::string(reinterpret_cast<const char*>(data), size));
  if (!in.doc) {
    qdt::fuzz::check_path_and_reason(in.path, in.reason);
    return 0;
  }
  const auto validated = qdt::impl::validate_push_request(*in.doc);
  if (const auto* error = std::get_if<std::string>(&validated)) {
    // "PATH: reason"
    const size_t colon = error->find(": ");
    if (colon == std::string::npos) contract_broken("rejection without \"PATH: reason\"", *error);
    qdt::fuzz::check_path_and_reason(error->substr(0, colon), error->substr(colon + 2));
    return 0;
  }
  const auto& items = std::get<std::vector<qdt::impl::PushItem>>(validated);
  if (items.size() != in.doc->size()) contract_broken("items lost", std::to_string(items.size()));
  std::vector<qdt::impl::Frame> frames;
  for (const qdt::impl::PushItem& item : items) {
    for (const std::string_view name : {item.queue, item.partition}) {
      if (name.empty() || name.size() > qdt::impl::kMaxNameBytes) contract_broken("name out of bounds", std::string(name));
    }
    if (item.transaction_id.size() > qdt::impl::kMaxNameBytes) contract_broken("transactionId too long", "");
    if (item.data == nullptr) contract_broken("accepted item without data", std::string(item.queue));
    qdt::impl::Frame f;
    f.transaction_id = item.transaction_id;
    f.payload = item.data->dump();
    f.hash = qdt::impl::hash_transaction_id(item.transaction_id);
    frames.push_back(std::move(f));
  }
  const std::vector<qdt::impl::DecodedFrame> back = qdt::impl::unpack_frames(qdt::impl::pack_frames(frames));
  if (back.size() != frames.size()) contract_broken("frames lost in packing", std::to_string(back.size()));
  for (size_t i = 0; i < back.size(); ++i) {
    if (back[i].transaction_id != frames[i].transaction_id || back[i].payload != frames[i].payload) {
      contract_broken("frame changed in packing", std::to_string(i));
    }
  }
  return 0;
}
