#include "sim/scenario/step_push.h"

#include "impl/json_text.h"
#include "impl/uuid.h"
#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxProducerNameBytes = 64;

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  PushArgs& a = s.args.emplace<PushArgs>();
  loader.item_counts()[s.id] = j.contains("items") && j["items"].is_array() ? static_cast<int64_t>(j["items"].size()) : -1;
  r.only(j, p, {"op", "id", "items", "broker", "producer", "retry"});
  if (!j.contains("items")) r.fail(p + "/items", "required");
  else a.items = j["items"];
  if (a.items.is_array()) {
    // Items go to the broker as written so that malformed ones can be sent on
    // purpose, but a field the broker ignores is a typo ("partiton" would
    // push to the default partition without a word).
    for (size_t i = 0; i < a.items.size(); ++i) {
      const std::string ip = p + "/items/" + std::to_string(i);
      r.only(a.items[i], ip, {"queue", "partition", "transactionId", "data"});
      if (!a.items[i].is_object()) continue;
      for (const char* key : {"queue", "partition"}) {
        const auto it = a.items[i].find(key);
        if (it != a.items[i].end() && it->is_string()) r.note_sql_name(it->get<std::string>(), ip + "/" + key);
      }
    }
  }
  if (auto v = r.integer(j, p, "broker", 0, kMaxBrokers - 1)) s.broker = static_cast<uint32_t>(*v);
  if (auto v = r.string(j, p, "producer", false)) {
    if (v->empty() || v->size() > kMaxProducerNameBytes) r.fail(p + "/producer", "must be 1-64 bytes");
    a.producer = *v;
  }
  if (auto it = j.find("retry"); it != j.end()) {
    const std::string rp = p + "/retry";
    if (!it->is_object()) {
      r.fail(rp, "expected {timeout_ms, attempts, backoff_ms}");
    } else {
      r.only(*it, rp, {"timeout_ms", "attempts", "backoff_ms"});
      if (auto v = r.integer(*it, rp, "timeout_ms", 1, 3'600'000)) a.retry.timeout_ms = *v;
      if (auto v = r.integer(*it, rp, "attempts", 1, 100)) a.retry.attempts = static_cast<uint32_t>(*v);
      if (auto v = r.integer(*it, rp, "backoff_ms", 0, 3'600'000)) a.retry.backoff_ms = *v;
    }
  }
  if (a.producer.empty()) a.producer = s.id;  // one producer per push step unless named
  loader.use_broker(p + "/broker", s.broker);
}

// The outcome of a push none of whose attempts got a response: every item
// answers `timeout` (docs/semantics.md §2.12), with the zero id.
impl::PushResponse timed_out(const json& items) {
  impl::PushResponse r;
  if (!items.is_array()) return r;
  for (const json& item : items) {
    impl::ItemResponse ir;
    ir.status = impl::ItemStatus::timeout;
    ir.message_id = impl::kZeroUuidText;
    if (item.is_object()) {
      if (item.contains("transactionId") && item["transactionId"].is_string()) ir.transaction_id = item["transactionId"];
      if (item.contains("queue") && item["queue"].is_string()) ir.queue = item["queue"];
    }
    r.items.push_back(std::move(ir));
  }
  return r;
}

void run(StepRunner& runner, const Step& s, uint64_t send_region) {
  const PushArgs& a = s.as<PushArgs>();
  StepOutcomes& out = runner.outcomes();
  World::PushOutcome outcome = runner.world().push(s.id, s.broker, a.producer, a.items, a.retry, send_region);
  out.retries += outcome.attempts - 1;
  impl::PushResponse response = outcome.response ? std::move(*outcome.response) : timed_out(a.items);
  for (const auto& item : response.items) out.timeouts += item.status == impl::ItemStatus::timeout ? 1 : 0;
  out.pushes[s.id] = std::move(response);
}

// Items are handed to the broker as written (docs/semantics.md §3), so any field may be
// missing or of the wrong type: show what is there.
std::string item_text(const json& item) {
  if (!item.is_object()) return item.dump();
  auto field = [&](const char* key, const char* fallback) {
    return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : std::string(fallback);
  };
  return field("queue", "?") + "/" + field("partition", "Default") + " " + field("transactionId", "(no key)");
}

std::string summary(const Step& s) {
  const PushArgs& a = s.as<PushArgs>();
  std::string out = "broker " + std::to_string(s.broker);
  if (!a.producer.empty()) out += ", producer " + a.producer;
  if (!a.items.is_array()) return out + ", items " + a.items.dump();
  out += ", " + std::to_string(a.items.size()) + (a.items.size() == 1 ? " item" : " items");
  constexpr size_t kShownItems = 6;  // a long request is summarized, its responses are all listed
  for (size_t i = 0; i < a.items.size() && i < kShownItems; ++i) out += (i ? ", " : ": ") + item_text(a.items[i]);
  if (a.items.size() > kShownItems) out += ", ...";
  if (a.retry.attempts > 1) {
    out += "; retry " + std::to_string(a.retry.attempts) + " attempts, timeout " + std::to_string(a.retry.timeout_ms) +
           " ms, backoff " + std::to_string(a.retry.backoff_ms) + " ms";
  }
  return out;
}

// "@STEP/INDEX" names an item another push step of the file answered.
void message_ref(StepLoader& loader, const std::string& id, const std::string& p) {
  JsonReader& r = loader.reader();
  if (id == "zero" || id == "new" || impl::parse_uuid(id)) return;
  if (id.size() > 1 && id[0] == '@') {
    const auto slash = id.find('/');
    const std::string step = id.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
    if (loader.kind_of(step) != &push_step) {
      return r.fail(p, "\"" + id + "\" refers to step \"" + step + "\", which is not a push step of this file");
    }
    if (slash == std::string::npos || slash + 1 >= id.size() ||
        id.find_first_not_of("0123456789", slash + 1) != std::string::npos || id.size() - slash > 7) {
      return r.fail(p, "expected \"@STEP/INDEX\" with a numeric index");
    }
    const int64_t index = std::stoll(id.substr(slash + 1));
    const int64_t n = loader.item_counts()[step];
    if (n >= 0 && index >= n) {
      r.fail(p, "\"" + id + "\": step \"" + step + "\" has only " + std::to_string(n) + " items");
    }
    return;
  }
  r.fail(p, "expected \"@STEP/INDEX\", \"zero\", \"new\" or a UUID");
}

void read_expect(StepLoader& loader, const json& value, const std::string& p, const std::string& step,
                 StepExpect& x) {
  JsonReader& r = loader.reader();
  if (value.is_object()) {
    r.only(value, p, {"rejected"});
    if (r.boolean(value, p, "rejected") != std::optional<bool>(true)) {
      r.fail(p, "a push expectation is an array of items or {\"rejected\": true}");
    }
    x.rejected = true;
    return;
  }
  if (!value.is_array()) return r.fail(p, "a push expectation is an array of items or {\"rejected\": true}");
  const int64_t n = loader.item_counts()[step];
  if (n >= 0 && static_cast<int64_t>(value.size()) != n) {
    r.fail(p, "expects " + std::to_string(value.size()) + " items but the request has " + std::to_string(n));
  }
  x.items.emplace();
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string ip = p + "/" + std::to_string(i);
    const json& item = value[i];
    if (!item.is_object()) {
      r.fail(ip, "expected {\"status\", \"message_id\"?}");
      continue;
    }
    r.only(item, ip, {"status", "message_id"});
    ItemExpect ie;
    if (auto st = r.string(item, ip, "status", true)) {
      if (*st != "queued" && *st != "duplicate" && *st != "error" && *st != "timeout") {
        r.fail(ip + "/status", "expected \"queued\", \"duplicate\", \"error\" or \"timeout\"");
      }
      ie.status = *st;
    }
    if (auto id = r.string(item, ip, "message_id", false)) {
      message_ref(loader, *id, ip + "/message_id");
      ie.message_id = *id;
    }
    x.items->push_back(std::move(ie));
  }
}

StepCost cost(const Step& s) {
  const PushArgs& a = s.as<PushArgs>();
  return {.attempts = int64_t{a.retry.attempts}, .items_bytes = static_cast<int64_t>(impl::json_text_bytes(a.items))};
}

}  // namespace

const StepKind push_step{
    .name = "push", .read = read, .run = run, .summary = summary, .fault = false, .read_expect = read_expect, .cost = cost};

}  // namespace qdt::sim
