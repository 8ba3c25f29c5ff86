#include "sim/scenario/timeline_text.h"

#include <sqlite3.h>

#include <variant>

#include "sim/world/world_config.h"

namespace qdt::sim {
namespace {

std::string label(const std::string& queue, const std::string& partition) { return queue + "/" + partition; }

// Items are handed to the broker as written (docs/semantics.md §3), so any field may be
// missing or of the wrong type: show what is there.
std::string item_text(const nlohmann::json& item) {
  if (!item.is_object()) return item.dump();
  auto field = [&](const char* key, const char* fallback) {
    return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : std::string(fallback);
  };
  return field("queue", "?") + "/" + field("partition", "Default") + " " + field("transactionId", "(no key)");
}

std::string push_summary(const Step& s) {
  std::string out = "broker " + std::to_string(s.broker);
  if (!s.producer.empty()) out += ", producer " + s.producer;
  if (!s.items.is_array()) return out + ", items " + s.items.dump();
  out += ", " + std::to_string(s.items.size()) + (s.items.size() == 1 ? " item" : " items");
  constexpr size_t kShownItems = 6;  // a long request is summarized, its responses are all listed
  for (size_t i = 0; i < s.items.size() && i < kShownItems; ++i) out += (i ? ", " : ": ") + item_text(s.items[i]);
  if (s.items.size() > kShownItems) out += ", ...";
  if (s.retry.attempts > 1) {
    out += "; retry " + std::to_string(s.retry.attempts) + " attempts, timeout " + std::to_string(s.retry.timeout_ms) +
           " ms, backoff " + std::to_string(s.retry.backoff_ms) + " ms";
  }
  return out;
}

std::string network_summary(const NetworkChange& n) {
  std::string out;
  auto add = [&](const std::string& text) { out += (out.empty() ? "" : ", ") + text; };
  if (n.latency_ms) add("latency " + std::to_string(n.latency_ms->first) + ".." + std::to_string(n.latency_ms->second) + " ms");
  if (n.loss_request_ppm) add("loss_request " + std::to_string(*n.loss_request_ppm) + " ppm");
  if (n.loss_response_ppm) add("loss_response " + std::to_string(*n.loss_response_ppm) + " ppm");
  if (n.duplicate_ppm) add("duplicate " + std::to_string(*n.duplicate_ppm) + " ppm");
  return out.empty() ? "no change" : out;
}

}  // namespace

std::string step_summary(const Step& s) {
  const std::string queue = s.queue.value_or("every queue");
  switch (s.op) {
    case Op::push: return push_summary(s);
    case Op::parallel: return std::to_string(s.children.size()) + " children run concurrently";
    case Op::sequence: return std::to_string(s.children.size()) + " children run in order";
    case Op::repeat:
      return std::to_string(s.children.size()) + " children run in order, " + std::to_string(s.times) + " times";
    case Op::advance: return "+" + std::to_string(s.advance_ms) + " ms";
    case Op::configure: return queue + " " + s.options.dump();
    case Op::retention: return "one retention pass over " + queue;
    case Op::delete_segment: return "delete the segment of " + label(queue, s.partition) + " covering offset " + std::to_string(s.offset);
    case Op::storage_fail:
      return "the next " + std::to_string(s.fault.count) + " " + storage_op_name(s.fault.op) +
             " transactions fail at statement " + std::to_string(s.fault.after_statements) + " with " +
             (s.fault.code == FaultCode::full ? "SQLITE_FULL" : "SQLITE_IOERR");
    case Op::ack: return label(queue, s.partition) + " txn " + s.transaction_id + ", group " + s.consumer_group;
    case Op::read:
      return label(queue, s.partition) + " from " + std::to_string(s.from) +
             (s.limit ? ", limit " + std::to_string(s.limit) : std::string(", no limit"));
    case Op::skew: return "broker " + std::to_string(s.broker) + " clock " + std::to_string(s.skew_ms) + " ms off storage";
    case Op::network: return network_summary(s.network);
    case Op::crash_broker: return "broker " + std::to_string(s.broker) + " loses its cache and what is in flight";
    case Op::evict_cache:
      return "broker " + std::to_string(s.broker) + " drops cache entries of " + queue +
             (s.evict_partition ? "/" + *s.evict_partition : std::string());
    case Op::cache: return "broker " + std::to_string(s.broker) + " cache " + (s.enabled ? "on" : "off");
    case Op::crash_storage:
      return std::string("storage loses power: unsynced writes dropped") + (s.torn ? ", the last one torn" : "") +
             ", then recovered from its journal";
  }
  return "";
}

bool is_fault_step(Op op) {
  switch (op) {
    case Op::push: case Op::parallel: case Op::sequence: case Op::retention: case Op::ack: case Op::read:
      return false;
    default:
      return true;
  }
}

std::string fault_text(const history::FaultRecord& fault) {
  if (fault.statement < 0) return "failed";
  return "failed at statement " + std::to_string(fault.statement) + " (" + sqlite3_errstr(fault.code) + ")";
}

EventText event_text(const history::Event& event) {
  auto since_start = [](int64_t unix_ms) { return std::optional<int64_t>(unix_ms - kEpochUnixMs); };
  if (const auto* p = std::get_if<history::PushEvent>(&event)) {
    std::string keys;
    for (const auto& f : p->frames) keys += (keys.empty() ? "" : ", ") + f.transaction_id;
    std::string out = "broker " + std::to_string(p->broker) + ", " + std::to_string(p->frames.size()) + " frames [" +
                      keys + "]";
    if (!p->followers.empty()) out += ", " + std::to_string(p->followers.size()) + " fused followers";
    if (p->failed) return {"push", label(p->queue, p->partition), std::nullopt, out + ": " + fault_text(p->fault)};
    out += ", window " + std::to_string(p->window_seconds) + " s, watermark " + std::to_string(p->p_verified) +
           (p->probe_ran ? ", probe scanned " + std::to_string(p->rows_scanned) + " rows" : std::string(", no probe"));
    return {"push", label(p->queue, p->partition), since_start(p->now_ms), out};
  }
  if (const auto* f = std::get_if<history::FetchEvent>(&event)) {
    return {"fetch", label(f->queue, f->partition), std::nullopt,
            "broker " + std::to_string(f->broker) + " fetched offset " + std::to_string(f->offset) + ": " +
                (f->failed ? "failed (id degrades to zero)"
                           : f->found ? f->message_id + " (txn " + f->transaction_id + ")" : std::string("segment gone"))};
  }
  if (const auto* c = std::get_if<history::ConfigureEvent>(&event)) {
    return {"configure", c->queue, since_start(c->now_ms),
            "window " + std::to_string(c->window_seconds) + " s, retention " + std::to_string(c->retention_seconds) +
                " s, completed retention " + std::to_string(c->completed_retention_seconds) + " s"};
  }
  if (const auto* d = std::get_if<history::DeleteSegmentEvent>(&event)) {
    return {"delete_segment", label(d->queue, d->partition), since_start(d->now_ms),
            "offsets " + std::to_string(d->base_offset) + ".." + std::to_string(d->end_offset) + " deleted" +
                (d->by_fault ? " by the delete_segment fault" : "")};
  }
  if (const auto* r = std::get_if<history::RetentionEvent>(&event)) {
    std::string spans;
    for (const auto& s : r->deleted) spans += (spans.empty() ? "" : ", ") + std::to_string(s.base_offset) + ".." + std::to_string(s.end_offset);
    return {"retention", label(r->queue, r->partition), since_start(r->now_ms),
            r->failed ? fault_text(r->fault) : spans.empty() ? std::string("deleted nothing") : "deleted segments " + spans};
  }
  if (const auto* p = std::get_if<history::PurgeEvent>(&event)) {
    return {"purge", label(p->queue, p->partition), since_start(p->now_ms),
            p->failed ? fault_text(p->fault)
                      : "purged " + std::to_string(p->rows.size()) + " sidecar rows (floor " +
                            std::to_string(p->floor_seconds) + " s, batch " + std::to_string(p->batch) + ")" +
                            (p->more ? ", more to do" : "")};
  }
  if (const auto* a = std::get_if<history::AckEvent>(&event)) {
    return {"ack", label(a->queue, a->partition), since_start(a->now_ms),
            "txn " + a->transaction_id + ", group " + a->consumer_group + ": " +
                (a->failed ? fault_text(a->fault)
                           : a->acked ? "acked offset " + std::to_string(a->offset) + " id " + a->message_id
                                      : std::string("unresolvable"))};
  }
  const auto& r = std::get<history::ReadEvent>(event);
  return {"read", label(r.queue, r.partition), std::nullopt,
          "from " + std::to_string(r.from) + " limit " + std::to_string(r.limit) + ": " +
              (r.failed ? std::string("failed") : std::to_string(r.messages.size()) + " messages")};
}

}  // namespace qdt::sim
