#include "sim/scenario/history_reach.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <variant>

#include "impl/reached.h"

namespace qdt::sim {
namespace {

using PartitionKey = std::pair<std::string, std::string>;
using KeyOf = std::tuple<std::string, std::string, std::string>;  // queue, partition, txn

// The window's edge, to the millisecond (docs/semantics.md §2.7: created_at >= now - window
// is inside).
void mark_window_edges(const history::History& h) {
  std::map<std::tuple<std::string, std::string, int64_t>, int64_t> created_at;  // (q, p, offset) -> ms
  std::map<KeyOf, int64_t> newest_ms;  // a key's newest stored occurrence
  for (const history::Event& event : h.events) {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr || push->failed) continue;
    const int64_t edge_ms = push->now_ms - push->window_seconds * 1000;
    for (const auto& [frame, offset] : push->duplicates) {
      auto it = created_at.find({push->queue, push->partition, offset});
      if (push->window_seconds <= 0 || it == created_at.end()) continue;
      if (it->second == edge_ms) QDT_REACHED("probe.original_exactly_at_window_edge");
      if (it->second == edge_ms + 1) QDT_REACHED("probe.original_1ms_inside_window_edge");
    }
    if (!push->queued) continue;
    for (size_t j = 0; j < push->frames.size(); ++j) {
      const KeyOf key{push->queue, push->partition, push->frames[j].transaction_id};
      auto newest = newest_ms.find(key);
      if (push->window_seconds > 0 && newest != newest_ms.end() && newest->second == edge_ms - 1) {
        QDT_REACHED("probe.repeat_1ms_past_window_edge");
      }
      created_at[{push->queue, push->partition, push->base_offset + static_cast<int64_t>(j)}] = push->now_ms;
      newest_ms[key] = push->now_ms;
    }
  }
  // Windows over time: widened, shrunk, off and back on.
  std::map<std::string, std::pair<int64_t, bool>> last;  // queue -> (window, was ever 0)
  for (const history::Event& event : h.events) {
    const auto* c = std::get_if<history::ConfigureEvent>(&event);
    if (c == nullptr) continue;
    auto [it, first] = last.try_emplace(c->queue, c->window_seconds, c->window_seconds == 0);
    if (first) continue;
    auto& [window, was_off] = it->second;
    if (c->window_seconds > window) QDT_REACHED("window.widened");
    if (c->window_seconds < window) QDT_REACHED("window.shrunk");
    if (was_off && window == 0 && c->window_seconds > 0) QDT_REACHED("window.turned_off_and_on");
    was_off = was_off || c->window_seconds == 0;
    window = c->window_seconds;
  }
}

void mark_requests(const history::History& h) {
  std::set<uint64_t> committed_requests;  // origin requests with a queued frame
  for (const history::Event& event : h.events) {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr || push->failed || !push->queued) continue;
    for (const history::FrameRecord& f : push->frames) committed_requests.insert(f.origin_request);
  }
  std::map<std::pair<uint64_t, uint32_t>, int> deliveries;  // (push_id, attempt) -> deliveries
  std::map<uint64_t, const history::RequestRecord*> first_attempt;
  std::set<KeyOf> delivered_keys;  // keys of the requests delivered so far
  std::map<std::pair<std::string, std::string>, std::string> partition_of;  // (queue, txn) -> a partition
  for (const history::RequestRecord& r : h.requests) {
    if (r.delivered) ++deliveries[{r.push_id, r.attempt}];
    if (r.attempt == 0 && r.delivered) first_attempt.try_emplace(r.push_id, &r);
    if (r.lost_in_crash) {
      QDT_REACHED(committed_requests.contains(r.request) ? "crash.broker_lost_request_after_commit"
                                                         : "crash.broker_lost_request_before_commit");
    }
    if (r.delivered && !r.rejected && !r.lost_in_crash && !r.response_received) QDT_REACHED("network.response_lost");
    std::set<KeyOf> keys;
    for (const history::ItemRecord& item : r.items) {
      const KeyOf key{item.queue, item.partition, item.transaction_id};
      if (!keys.insert(key).second) QDT_REACHED("request.in_request_repeat");
      if (!r.delivered) continue;
      if (delivered_keys.contains(key)) QDT_REACHED("request.key_repeated_in_a_later_request");
      const auto [it, first] = partition_of.try_emplace({item.queue, item.transaction_id}, item.partition);
      if (!first && it->second != item.partition) QDT_REACHED("request.key_sent_to_another_partition");
    }
    if (r.delivered) delivered_keys.insert(keys.begin(), keys.end());
  }
  for (const auto& [id, count] : deliveries) {
    if (count > 1) QDT_REACHED("network.duplicated_delivery");
  }
  if (!h.recorded_request_times) return;
  for (const history::RequestRecord& r : h.requests) {
    if (r.attempt == 0 || !r.delivered) continue;
    auto first = first_attempt.find(r.push_id);
    if (first == first_attempt.end()) continue;
    const history::RequestRecord& f = *first->second;
    if (r.received_at_ms < f.answered_at_ms) QDT_REACHED("retry.delivered_while_its_first_attempt_in_flight");
    for (size_t i = 0; i < r.responses.size() && i < f.responses.size(); ++i) {
      if (r.responses[i].status == "duplicate" && f.responses[i].status == "queued" &&
          r.responses[i].message_id == f.responses[i].message_id) {
        QDT_REACHED("retry.answered_duplicate_of_its_first_attempt");
      }
    }
  }
}

// Retention, purge and acks against pushes in flight.
void mark_background(const history::History& h) {
  std::map<PartitionKey, std::vector<std::pair<int64_t, int64_t>>> in_flight;  // partition -> [received, answered]
  if (h.recorded_request_times) {
    for (const history::RequestRecord& r : h.requests) {
      if (!r.delivered || r.rejected) continue;
      for (const history::ItemRecord& item : r.items) {
        in_flight[{item.queue, item.partition}].emplace_back(r.received_at_ms, r.answered_at_ms);
      }
    }
  }
  auto during_a_push = [&](const std::string& q, const std::string& p, int64_t at_ms) {
    auto it = in_flight.find({q, p});
    if (it == in_flight.end()) return false;
    for (const auto& [from, to] : it->second) {
      if (from < at_ms && at_ms < to) return true;
    }
    return false;
  };
  std::map<std::string, std::pair<int64_t, int64_t>> options;  // queue -> (window, completedRetention) seconds
  std::map<PartitionKey, std::vector<int64_t>> stored_ms;       // created_at of every queued segment
  std::map<PartitionKey, int64_t> purged_upto;  // the highest end_offset the purge deleted
  std::map<KeyOf, int64_t> last_offset_of;      // a key's newest stored offset
  for (const history::Event& event : h.events) {
    if (const auto* c = std::get_if<history::ConfigureEvent>(&event)) {
      options[c->queue] = {c->window_seconds, c->completed_retention_seconds};
    } else if (const auto* push = std::get_if<history::PushEvent>(&event); push && !push->failed && push->queued) {
      stored_ms[{push->queue, push->partition}].push_back(push->now_ms);
      for (size_t j = 0; j < push->frames.size(); ++j) {
        last_offset_of[{push->queue, push->partition, push->frames[j].transaction_id}] =
            push->base_offset + static_cast<int64_t>(j);
      }
    } else if (const auto* purge = std::get_if<history::PurgeEvent>(&event); purge && !purge->failed) {
      if (!purge->rows.empty() && during_a_push(purge->queue, purge->partition, purge->now_ms)) {
        QDT_REACHED("purge.during_a_push_in_flight");
      }
      // A row past max(window, 900 s) that only completedRetentionSeconds keeps:
      // the floor's third term decides what this purge may delete.
      const auto [window, completed] = options[purge->queue];
      const int64_t without_ms = purge->now_ms - std::max<int64_t>(window, 900) * 1000;
      const int64_t floor_ms = purge->now_ms - purge->floor_seconds * 1000;
      for (const int64_t at : stored_ms[{purge->queue, purge->partition}]) {
        if (completed > std::max<int64_t>(window, 900) && at >= floor_ms && at < without_ms) {
          QDT_REACHED("purge.row_kept_only_by_completed_retention");
          break;
        }
      }
      for (const history::SidecarRowRecord& row : purge->rows) {
        int64_t& upto = purged_upto[{purge->queue, purge->partition}];
        upto = std::max(upto, row.end_offset);
      }
    } else if (const auto* retention = std::get_if<history::RetentionEvent>(&event); retention && !retention->failed) {
      if (during_a_push(retention->queue, retention->partition, retention->now_ms)) {
        QDT_REACHED("retention.during_a_push_in_flight");
      }
    } else if (const auto* ack = std::get_if<history::AckEvent>(&event); ack && !ack->failed) {
      auto stored = last_offset_of.find({ack->queue, ack->partition, ack->transaction_id});
      auto purged = purged_upto.find({ack->queue, ack->partition});
      if (stored != last_offset_of.end() && purged != purged_upto.end() && stored->second <= purged->second) {
        QDT_REACHED("ack.after_its_sidecar_row_purged");
      }
    }
  }
  for (const history::StorageCrash& crash : h.storage_crashes) {
    if (crash.bytes_dropped > 0) QDT_REACHED("power.unsynced_bytes_dropped");
    if (crash.torn_bytes_kept > 0) QDT_REACHED("power.torn_page_kept");
  }
}

}  // namespace

void mark_history_points(const history::History& history) {
  mark_window_edges(history);
  mark_requests(history);
  mark_background(history);
}

}  // namespace qdt::sim
