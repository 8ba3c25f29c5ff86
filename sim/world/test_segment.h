#pragma once
// Tests' one-frame segment push (queue "q", window 3600 s assumed, no
// watermark): the smallest write a storage transaction makes.
#include <string>
#include <utility>

#include "impl/storage/storage_types.h"

namespace qdt::sim {

inline impl::SegmentPush one_frame_segment(const std::string& transaction_id, const std::string& partition = "p") {
  impl::SegmentPush s;
  s.queue = "q";
  s.partition = partition;
  s.window_seconds_assumed = 3600;
  impl::Frame f;
  f.message_id = impl::make_uuid_v7(1000, 1, 1);
  f.transaction_id = transaction_id;
  f.payload = "{}";
  f.hash = impl::hash_transaction_id(transaction_id);
  s.frames.push_back(std::move(f));
  return s;
}

}  // namespace qdt::sim
