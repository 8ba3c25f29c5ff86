#include "properties/evidence.h"

#include <variant>

namespace qdt::properties {
namespace {

struct Tally {
  int64_t of = 0;
  int64_t judged = 0;
  void add(bool answered) {
    ++of;
    judged += answered ? 1 : 0;
  }
};

}  // namespace

std::vector<Evidence> evidence_of(const history::History& h) {
  Tally pushes, watermarked, inspected, acks, retentions, purges;
  for (const history::Event& e : h.events) {
    if (const auto* p = std::get_if<history::PushEvent>(&e)) {
      pushes.add(!p->failed);
      if (p->p_verified >= 0) watermarked.add(!p->failed);
      inspected.add(!p->failed && p->rows_after_read);
    } else if (const auto* a = std::get_if<history::AckEvent>(&e)) {
      acks.add(!a->failed);
    } else if (const auto* r = std::get_if<history::RetentionEvent>(&e)) {
      retentions.add(!r->failed);
    } else if (const auto* u = std::get_if<history::PurgeEvent>(&e)) {
      purges.add(!u->failed);
    }
  }
  // An item answered error tells a client-side property nothing; a
  // duplicate answered with the zero id names no original to check.
  Tally items, ids, outcomes;
  for (const history::RequestRecord& r : h.requests) {
    for (const history::ResponseItem& item : r.responses) {
      items.add(item.status == "queued" || item.status == "duplicate");
      ids.add(item.status == "queued" || (item.status == "duplicate" && item.message_id != history::kZeroUuid));
    }
  }
  for (const history::PushOutcomeRecord& o : h.outcomes) {
    if (o.rejected) continue;
    bool answered = false;
    for (const std::string& s : o.statuses) answered |= s == "queued" || s == "duplicate";
    outcomes.add(answered);
  }
  const auto entry = [](const char* property, const char* events, const Tally& t) {
    return Evidence{property, events, t.of, t.judged};
  };
  return {entry("model-agreement", "storage pushes", pushes),
          entry("no-double-write", "storage pushes", pushes),
          entry("no-false-duplicate", "storage pushes", pushes),
          entry("duplicate-id", "answered items with an id", ids),
          entry("partition-scope", "storage pushes", pushes),
          entry("first-wins", "answered items", items),
          entry("nothing-written-on-duplicate", "inspected storage pushes", inspected),
          entry("offsets", "storage pushes", pushes),
          entry("dedup-off", "storage pushes", pushes),
          entry("ack-resolution", "acks", acks),
          entry("retry-convergence", "producers' pushes", outcomes),
          entry("window-expiry", "storage pushes", pushes),
          entry("cache-transparency", "storage pushes with a watermark", watermarked),
          entry("retention-model", "retention steps", retentions),
          entry("sidecar-floor", "purge steps", purges),
          entry("client-visible", "answered items", items)};
}

const std::vector<std::pair<std::string, std::string>>& properties_judging_failures() {
  static const std::vector<std::pair<std::string, std::string>> kList = {
      {"liveness", "a failed call still ended; liveness judges calls that never did"},
      {"durability", "it judges what storage kept across a loss of power, answered or not"},
      {"deadlock-free", "it judges the lock failures themselves"}};
  return kList;
}

}  // namespace qdt::properties
