#include "sim/scenario/timeline_text.h"

#include <sqlite3.h>

#include <variant>

#include "sim/world/world_config.h"

namespace qdt::sim {
namespace {

std::string label(const std::string& queue, const std::string& partition) { return queue + "/" + partition; }

}  // namespace

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
