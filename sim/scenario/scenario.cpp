#include "sim/scenario/scenario.h"

#include "sim/base/file_name.h"
#include "sim/base/json_input.h"
#include "sim/base/json_schema.h"

#include <algorithm>
#include <cassert>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "impl/json_text.h"
#include "impl/broker/push_request.h"
#include "impl/queue_options.h"
#include "impl/uuid.h"

namespace qdt::sim {
namespace {

constexpr size_t kMaxProducerNameBytes = 64;
constexpr int64_t kMaxAdvanceMs = int64_t{10} * 365 * 24 * 3600 * 1000;  // ten years of virtual time

using json = nlohmann::json;


}  // namespace

// Structural validation against the shipped schema. Reports the deepest
// errors first (they name the field at fault rather than "oneOf failed").
std::vector<LoadError> schema_errors(const json& doc, const std::string& file) {
  static const CompiledSchema schema(scenario_schema_text(), "scenario schema");
  return schema.errors(doc, file);
}

namespace {

// Checked access: every read verifies type and range and records an error
// with its path instead of throwing, so no input can crash the loader.
class Reader {
 public:
  Reader(const std::string& file, std::vector<LoadError>& errors) : file_(file), errors_(errors) {}

  void fail(const std::string& path, const std::string& reason) { errors_.push_back({file_, path, reason}); }

  void only(const json& obj, const std::string& path, std::initializer_list<const char*> allowed) {
    if (!obj.is_object()) return;
    for (const auto& [key, value] : obj.items()) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || key == a;
      if (!ok) fail(path + "/" + key, "unknown field");
    }
  }

  std::optional<int64_t> integer(const json& obj, const std::string& path, const char* key, int64_t lo, int64_t hi) {
    const auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    if (!it->is_number_integer()) {
      fail(path + "/" + key, "expected an integer");
      return std::nullopt;
    }
    if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(hi)) {
      fail(path + "/" + key, "must be <= " + std::to_string(hi));
      return std::nullopt;
    }
    const int64_t v = it->get<int64_t>();
    if (v < lo || v > hi) {
      fail(path + "/" + key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                 std::to_string(v));
      return std::nullopt;
    }
    return v;
  }

  std::optional<std::string> string(const json& obj, const std::string& path, const char* key, bool required) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(path + "/" + key, "required");
      return std::nullopt;
    }
    if (!it->is_string()) {
      fail(path + "/" + key, "expected a string");
      return std::nullopt;
    }
    return it->get<std::string>();
  }

  // A queue, partition, consumer group or transactionId: one rule wherever a
  // name appears, the one the broker applies to a push item.
  std::optional<std::string> name(const json& obj, const std::string& path, const char* key, bool required) {
    auto v = string(obj, path, key, required);
    if (v && (v->empty() || v->size() > impl::kMaxNameBytes)) {
      fail(path + "/" + key, "a name is 1-" + std::to_string(impl::kMaxNameBytes) + " bytes, got " +
                                 std::to_string(v->size()));
      return std::nullopt;
    }
    return v;
  }

  std::optional<bool> boolean(const json& obj, const std::string& path, const char* key) {
    const auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    if (!it->is_boolean()) {
      fail(path + "/" + key, "expected true or false");
      return std::nullopt;
    }
    return it->get<bool>();
  }

  std::optional<uint32_t> probability_ppm(const json& obj, const std::string& path, const char* key) {
    const auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > 1) {
      fail(path + "/" + key, "expected a probability in [0, 1]");
      return std::nullopt;
    }
    return static_cast<uint32_t>(it->get<double>() * 1'000'000 + 0.5);
  }

  bool latency(const json& obj, const std::string& path, int64_t& lo, int64_t& hi) {
    const auto it = obj.find("latency_ms");
    if (it == obj.end()) return true;
    const std::string where = path + "/latency_ms";
    if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number_integer() || !(*it)[1].is_number_integer()) {
      fail(where, "expected [min, max] in integer milliseconds");
      return false;
    }
    const int64_t a = (*it)[0].get<int64_t>();
    const int64_t b = (*it)[1].get<int64_t>();
    if (a < 0 || b < a || b > 60'000) {
      fail(where, "expected 0 <= min <= max <= 60000");
      return false;
    }
    lo = a;
    hi = b;
    return true;
  }

 private:
  const std::string& file_;
  std::vector<LoadError>& errors_;
};

constexpr int64_t kMaxStorageFailCount = 1'000'000;
// A fault deeper than any transaction's statement count fails its COMMIT;
// past this bound a scenario is saying something it cannot mean.
constexpr int64_t kMaxAfterStatements = 64;
constexpr const char* kStorageOpNames =
    "\"push\", \"fetch\", \"hydrate\", \"ack\", \"read\", \"retention\", \"purge\" or \"any\"";

const std::map<std::string, StorageOpKind>& storage_op_names() {
  static const std::map<std::string, StorageOpKind> kinds = {
      {"push", StorageOpKind::push},   {"fetch", StorageOpKind::fetch},         {"hydrate", StorageOpKind::hydrate},
      {"ack", StorageOpKind::ack},     {"read", StorageOpKind::read},           {"retention", StorageOpKind::retention},
      {"purge", StorageOpKind::purge}, {"any", StorageOpKind::any}};
  return kinds;
}

std::optional<StorageOpKind> storage_op_of(const std::string& name) {
  const auto it = storage_op_names().find(name);
  return it == storage_op_names().end() ? std::nullopt : std::optional<StorageOpKind>(it->second);
}

const std::map<std::string, Op>& op_names() {
  static const std::map<std::string, Op> ops = {
      {"push", Op::push},           {"parallel", Op::parallel},  {"sequence", Op::sequence}, {"repeat", Op::repeat},         {"advance", Op::advance},
      {"configure", Op::configure}, {"retention", Op::retention},       {"delete_segment", Op::delete_segment},
      {"storage_fail", Op::storage_fail}, {"ack", Op::ack},             {"read", Op::read},
      {"skew", Op::skew},           {"network", Op::network},           {"crash_broker", Op::crash_broker},
      {"crash_storage", Op::crash_storage},
      {"evict_cache", Op::evict_cache},   {"cache", Op::cache}};
  return ops;
}

std::optional<Op> op_of(const std::string& name) {
  const auto it = op_names().find(name);
  return it == op_names().end() ? std::nullopt : std::optional<Op>(it->second);
}


class Loader {
 public:
  Loader(const std::string& file, std::vector<LoadError>& errors) : r_(file, errors) {}

  void world(const json& w, Scenario& s) {
    if (!w.is_object()) return r_.fail("/world", "expected an object");
    r_.only(w, "/world", {"brokers", "fusion", "cache", "network", "storage", "variant", "schedule"});
    if (auto it = w.find("schedule"); it != w.end()) {
      for (const auto& [path, reason] : parse_schedule(*it, "/world/schedule", s.world.schedule)) r_.fail(path, reason);
    }
    if (auto v = r_.string(w, "/world", "variant", false)) {
      // A design variant (docs/semantics.md §7) the scenario runs against; --variant overrides it.
      if (auto variant = impl::parse_variant(*v)) {
        s.world.variant = *variant;
      } else {
        r_.fail("/world/variant", "unknown variant \"" + *v + "\" (qdt mutants --list names them)");
      }
    }
    if (auto v = r_.boolean(w, "/world", "fusion")) s.world.fusion = *v;
    if (auto v = r_.integer(w, "/world", "brokers", 1, kMaxBrokers)) s.world.brokers = static_cast<uint32_t>(*v);
    if (auto it = w.find("cache"); it != w.end()) {
      r_.only(*it, "/world/cache", {"enabled", "budget_bytes", "decline_cooldown_flushes"});
      if (auto v = r_.boolean(*it, "/world/cache", "enabled")) s.world.cache.enabled = *v;
      if (auto v = r_.integer(*it, "/world/cache", "budget_bytes", 0, int64_t{1} << 50)) s.world.cache.budget_bytes = *v;
      if (auto v = r_.integer(*it, "/world/cache", "decline_cooldown_flushes", 0, kMaxDeclineCooldownFlushes)) {
        s.world.cache.decline_cooldown_flushes = *v;
      }
    }
    if (auto it = w.find("network"); it != w.end()) {
      r_.only(*it, "/world/network", {"latency_ms", "loss_request", "loss_response", "duplicate"});
      network(*it, "/world/network", s.world.network);
    }
    if (auto it = w.find("storage"); it != w.end()) {
      const std::string p = "/world/storage";
      r_.only(*it, p, {"path", "purge_batch", "latency_ms", "interleave", "synchronous"});
      if (auto v = r_.boolean(*it, p, "interleave")) s.world.storage.interleave = *v;
      if (auto v = r_.string(*it, p, "path", false)) {
        // A plain file name only: it becomes part of an SQLite URI, where "?"
        // would add parameters (another VFS, an in-memory database) and "/" or
        // ".." would leave the run's fresh folder.
        if (*v != ":memory:" && (v->empty() || file_name_part(*v) != *v)) {
          r_.fail(p + "/path", "expected \":memory:\" or a plain file name (1-128 bytes of A-Z a-z 0-9 . _ -, "
                               "not starting with \".\"), made in a fresh folder of the run's own");
        } else {
          s.world.storage.path = *v;
        }
      }
      file_storage_ = s.world.storage.path != ":memory:";
      if (auto v = r_.string(*it, p, "synchronous", false)) {
        if (*v != "full" && *v != "normal" && *v != "off") {
          r_.fail(p + "/synchronous", "expected \"full\", \"normal\" or \"off\", got \"" + *v + "\"");
        } else if (!file_storage_) {
          r_.fail(p + "/synchronous", "applies to file storage only: set /world/storage/path to a file name");
        } else {
          s.world.storage.synchronous = *v;
        }
      }
      if (auto v = r_.integer(*it, p, "purge_batch", 1, 1'000'000)) s.world.storage.purge_batch = *v;
      r_.latency(*it, p, s.world.storage.latency_ms_min, s.world.storage.latency_ms_max);
    }
  }

  void network(const json& n, const std::string& p, NetworkConfig& config) {
    NetworkChange change;
    network_change(n, p, change);
    change.apply(config);
  }

  void network_change(const json& n, const std::string& p, NetworkChange& change) {
    if (!n.is_object()) return r_.fail(p, "expected an object");
    int64_t lo = 0, hi = 0;
    if (n.contains("latency_ms") && r_.latency(n, p, lo, hi)) change.latency_ms = std::make_pair(lo, hi);
    change.loss_request_ppm = r_.probability_ppm(n, p, "loss_request");
    change.loss_response_ppm = r_.probability_ppm(n, p, "loss_response");
    change.duplicate_ppm = r_.probability_ppm(n, p, "duplicate");
  }

  void steps(const json& list, const std::string& p, std::vector<Step>& out, bool inside_parallel) {
    if (!list.is_array()) return r_.fail(p, "expected an array of steps");
    for (size_t i = 0; i < list.size(); ++i) {
      Step step;
      if (this->step(list[i], p + "/" + std::to_string(i), step, inside_parallel)) out.push_back(std::move(step));
    }
  }

  bool step(const json& j, const std::string& p, Step& s, bool inside_parallel) {
    if (!j.is_object()) {
      r_.fail(p, "expected a step object");
      return false;
    }
    s.path = p;
    const auto op_name = r_.string(j, p, "op", true);
    if (!op_name) return false;
    const auto op = op_of(*op_name);
    if (!op) {
      r_.fail(p + "/op", "unknown op \"" + *op_name + "\"");
      return false;
    }
    s.op = *op;
    if (auto id = r_.string(j, p, "id", false); id && repeat_depth_ > 0) {
      // Ids name one outcome; a step inside repeat has one per iteration.
      r_.fail(p + "/id", "a step inside repeat runs many times and cannot have an id");
    } else if (id) {
      if (id->empty() || id->size() > 64 || id->find('/') != std::string::npos || id->front() == '#' ||
          *id == "stored") {
        r_.fail(p + "/id", "a step id is 1-64 characters, without '/', not starting with '#', not \"stored\"");
      } else if (!ids_.emplace(*id, s.op).second) {
        r_.fail(p + "/id", "duplicate step id \"" + *id + "\"");
      } else {
        s.id = *id;
      }
    }
    if (s.id.empty()) s.id = "#" + p.substr(std::string("/steps/").size());
    if (s.op == Op::push) push_counts_[s.id] = j.contains("items") && j["items"].is_array()
                                                   ? static_cast<int64_t>(j["items"].size())
                                                   : -1;
    switch (s.op) {
      case Op::push: {
        r_.only(j, p, {"op", "id", "items", "broker", "producer", "retry"});
        if (!j.contains("items")) r_.fail(p + "/items", "required");
        else s.items = j["items"];
        if (auto v = r_.integer(j, p, "broker", 0, kMaxBrokers - 1)) s.broker = static_cast<uint32_t>(*v);
        if (auto v = r_.string(j, p, "producer", false)) {
          if (v->empty() || v->size() > kMaxProducerNameBytes) r_.fail(p + "/producer", "must be 1-64 bytes");
          s.producer = *v;
        }
        if (auto it = j.find("retry"); it != j.end()) {
          const std::string rp = p + "/retry";
          if (!it->is_object()) {
            r_.fail(rp, "expected {timeout_ms, attempts, backoff_ms}");
          } else {
            r_.only(*it, rp, {"timeout_ms", "attempts", "backoff_ms"});
            if (auto v = r_.integer(*it, rp, "timeout_ms", 1, 3'600'000)) s.retry.timeout_ms = *v;
            if (auto v = r_.integer(*it, rp, "attempts", 1, 100)) s.retry.attempts = static_cast<uint32_t>(*v);
            if (auto v = r_.integer(*it, rp, "backoff_ms", 0, 3'600'000)) s.retry.backoff_ms = *v;
          }
        }
        if (s.producer.empty()) s.producer = s.id;  // one producer per push step unless named
        brokers_used_.emplace_back(p + "/broker", s.broker);
        break;
      }
      case Op::parallel:
        r_.only(j, p, {"op", "id", "steps"});
        if (inside_parallel) r_.fail(p + "/op", "parallel may not be nested inside parallel, sequence or repeat");
        if (!j.contains("steps")) r_.fail(p + "/steps", "required");
        else steps(j["steps"], p + "/steps", s.children, true);
        break;
      case Op::sequence:
        r_.only(j, p, {"op", "id", "steps"});
        if (!j.contains("steps")) r_.fail(p + "/steps", "required");
        else steps(j["steps"], p + "/steps", s.children, true);  // no parallel inside a sequence
        break;
      case Op::repeat:
        r_.only(j, p, {"op", "id", "times", "steps"});
        if (auto v = r_.integer(j, p, "times", 1, kMaxRepeatTimes)) s.times = *v;
        else if (!j.contains("times")) r_.fail(p + "/times", "required");
        if (!j.contains("steps")) {
          r_.fail(p + "/steps", "required");
        } else {
          ++repeat_depth_;
          steps(j["steps"], p + "/steps", s.children, true);  // no parallel inside a repeat
          --repeat_depth_;
        }
        break;
      case Op::advance: {
        r_.only(j, p, {"op", "id", "seconds", "ms"});
        const bool has_s = j.contains("seconds"), has_ms = j.contains("ms");
        if (has_s == has_ms) {
          r_.fail(p, "advance takes exactly one of \"seconds\" or \"ms\"");
          break;
        }
        const json& v = has_s ? j["seconds"] : j["ms"];
        if (!v.is_number() || v.get<double>() < 0) {
          r_.fail(p + (has_s ? "/seconds" : "/ms"), "expected a number >= 0");
          break;
        }
        const double ms = has_s ? v.get<double>() * 1000.0 : v.get<double>();
        if (ms > static_cast<double>(kMaxAdvanceMs) || ms != static_cast<double>(static_cast<int64_t>(ms))) {
          r_.fail(p + (has_s ? "/seconds" : "/ms"), "must be a whole number of milliseconds, at most ten years");
          break;
        }
        s.advance_ms = static_cast<int64_t>(ms);
        break;
      }
      case Op::configure: {
        r_.only(j, p, {"op", "id", "queue", "options"});
        s.queue = r_.name(j, p, "queue", true);
        if (!j.contains("options")) {
          r_.fail(p + "/options", "required");
          break;
        }
        impl::QueueOptions scratch;
        if (auto error = impl::apply_options(j["options"], p + "/options", scratch)) {
          bad_options(*error);
          break;
        }
        s.options = j["options"];
        break;
      }
      case Op::retention:
        r_.only(j, p, {"op", "id", "queue"});
        s.queue = r_.name(j, p, "queue", false);
        break;
      case Op::delete_segment:
        r_.only(j, p, {"op", "id", "queue", "partition", "offset"});
        s.queue = r_.name(j, p, "queue", true);
        if (auto v = r_.name(j, p, "partition", false)) s.partition = *v;
        if (auto v = r_.integer(j, p, "offset", 0, INT64_MAX / 2)) s.offset = *v;
        else if (!j.contains("offset")) r_.fail(p + "/offset", "required");
        break;
      case Op::storage_fail:
        r_.only(j, p, {"op", "id", "count", "target", "after_statements", "code"});
        storage_fault(j, p, s);
        break;
      case Op::skew:
        r_.only(j, p, {"op", "id", "broker", "ms"});
        required_broker(j, p, s);
        if (auto v = r_.integer(j, p, "ms", -86'400'000, 86'400'000)) s.skew_ms = *v;
        else if (!j.contains("ms")) r_.fail(p + "/ms", "required");
        break;
      case Op::crash_broker:
        r_.only(j, p, {"op", "id", "broker"});
        required_broker(j, p, s);
        break;
      case Op::crash_storage:
        r_.only(j, p, {"op", "id", "torn"});
        if (auto v = r_.boolean(j, p, "torn")) s.torn = *v;
        // An in-memory database has no disk that could lose power.
        if (!file_storage_) r_.fail(p, "crash_storage needs file storage: set /world/storage/path to a file name");
        break;
      case Op::evict_cache:
        r_.only(j, p, {"op", "id", "broker", "queue", "partition"});
        required_broker(j, p, s);
        s.queue = r_.name(j, p, "queue", false);
        s.evict_partition = r_.name(j, p, "partition", false);
        if (s.evict_partition && !s.queue) r_.fail(p + "/partition", "a partition needs its queue");
        break;
      case Op::cache:
        r_.only(j, p, {"op", "id", "broker", "enabled"});
        required_broker(j, p, s);
        if (auto v = r_.boolean(j, p, "enabled")) s.enabled = *v;
        else if (!j.contains("enabled")) r_.fail(p + "/enabled", "required");
        break;
      case Op::network:
        r_.only(j, p, {"op", "id", "latency_ms", "loss_request", "loss_response", "duplicate"});
        network_change(j, p, s.network);
        if (!s.network.latency_ms && !s.network.loss_request_ppm && !s.network.loss_response_ppm &&
            !s.network.duplicate_ppm) {
          r_.fail(p, "a network step changes at least one of latency_ms, loss_request, loss_response, duplicate");
        }
        break;
      case Op::ack:
        r_.only(j, p, {"op", "id", "queue", "partition", "transactionId", "consumerGroup"});
        s.queue = r_.name(j, p, "queue", true);
        if (auto v = r_.name(j, p, "partition", false)) s.partition = *v;
        if (auto v = r_.name(j, p, "transactionId", true)) s.transaction_id = *v;
        if (auto v = r_.name(j, p, "consumerGroup", false)) s.consumer_group = *v;
        break;
      case Op::read:
        r_.only(j, p, {"op", "id", "queue", "partition", "from", "limit"});
        s.queue = r_.name(j, p, "queue", true);
        if (auto v = r_.name(j, p, "partition", false)) s.partition = *v;
        if (auto v = r_.integer(j, p, "from", 0, INT64_MAX / 2)) s.from = *v;
        if (auto v = r_.integer(j, p, "limit", 0, 1'000'000'000)) s.limit = *v;
        break;
    }
    return true;
  }

  // storage_fail: `count` (required), `target` (the kind of storage
  // transaction hit; "op" is the step's own key), `after_statements`, `code`.
  void storage_fault(const json& j, const std::string& p, Step& s) {
    if (auto v = r_.integer(j, p, "count", 1, kMaxStorageFailCount)) s.fault.count = *v;
    else if (!j.contains("count")) r_.fail(p + "/count", "required");
    if (auto v = r_.string(j, p, "target", false)) {
      if (auto kind = storage_op_of(*v)) s.fault.op = *kind;
      else r_.fail(p + "/target", "unknown storage transaction \"" + *v + "\" (expected " + kStorageOpNames + ")");
    }
    if (auto v = r_.integer(j, p, "after_statements", 0, kMaxAfterStatements)) s.fault.after_statements = *v;
    if (auto v = r_.string(j, p, "code", false)) {
      if (*v == "ioerr") s.fault.code = FaultCode::io_error;
      else if (*v == "full") s.fault.code = FaultCode::full;
      else r_.fail(p + "/code", "unknown fault code \"" + *v + "\" (expected \"ioerr\" or \"full\")");
    }
  }

  // A step's required `broker`, checked against world.brokers after loading.
  void required_broker(const json& j, const std::string& p, Step& s) {
    if (auto v = r_.integer(j, p, "broker", 0, kMaxBrokers - 1)) {
      s.broker = static_cast<uint32_t>(*v);
      brokers_used_.emplace_back(p + "/broker", s.broker);
    } else if (!j.contains("broker")) {
      r_.fail(p + "/broker", "required");
    }
  }

  void bad_options(const std::string& error) {
    const auto colon = error.find(": ");
    r_.fail(error.substr(0, colon), colon == std::string::npos ? error : error.substr(colon + 2));
  }

  void expect(const json& e, Scenario& s) {
    if (!e.is_object()) return r_.fail("/expect", "expected an object");
    for (const auto& [key, value] : e.items()) {
      const std::string p = "/expect/" + key;
      if (key == "stored") {
        stored(value, p, s);
        continue;
      }
      const auto it = ids_.find(key);
      if (it == ids_.end()) {
        r_.fail(p, "expectation for a step that does not exist");
        continue;
      }
      StepExpect x;
      x.path = p;
      switch (it->second) {
        case Op::push:
          push_expect(value, p, key, x);
          break;
        case Op::ack:
          if (!value.is_object()) {
            r_.fail(p, "an ack expectation is {\"status\": \"acked\"|\"unresolvable\"|\"error\"}");
            break;
          }
          r_.only(value, p, {"status"});
          x.ack_status = r_.string(value, p, "status", true);
          // "error": an injected storage fault failed the ack (storage_fail target "ack").
          if (x.ack_status && *x.ack_status != "acked" && *x.ack_status != "unresolvable" && *x.ack_status != "error") {
            r_.fail(p + "/status", "expected \"acked\", \"unresolvable\" or \"error\"");
          }
          break;
        case Op::read:
          if (!value.is_object()) {
            r_.fail(p, "a read expectation is {\"count\": N} or {\"transactionIds\": [...]}");
            break;
          }
          r_.only(value, p, {"count", "transactionIds"});
          x.count = r_.integer(value, p, "count", 0, INT64_MAX / 2);
          if (auto t = value.find("transactionIds"); t != value.end()) {
            if (!t->is_array()) {
              r_.fail(p + "/transactionIds", "expected an array of strings");
              break;
            }
            x.transaction_ids.emplace();
            for (size_t i = 0; i < t->size(); ++i) {
              if (!(*t)[i].is_string()) r_.fail(p + "/transactionIds/" + std::to_string(i), "expected a string");
              else x.transaction_ids->push_back((*t)[i].get<std::string>());
            }
          }
          if (!x.count && !x.transaction_ids) r_.fail(p, "expected \"count\" or \"transactionIds\"");
          break;
        default:
          r_.fail(p, "only push, ack and read steps have expectations");
      }
      s.expect.emplace(key, std::move(x));
    }
  }

  void push_expect(const json& value, const std::string& p, const std::string& step, StepExpect& x) {
    if (value.is_object()) {
      r_.only(value, p, {"rejected"});
      if (r_.boolean(value, p, "rejected") != std::optional<bool>(true)) {
        r_.fail(p, "a push expectation is an array of items or {\"rejected\": true}");
      }
      x.rejected = true;
      return;
    }
    if (!value.is_array()) return r_.fail(p, "a push expectation is an array of items or {\"rejected\": true}");
    const int64_t n = push_counts_[step];
    if (n >= 0 && static_cast<int64_t>(value.size()) != n) {
      r_.fail(p, "expects " + std::to_string(value.size()) + " items but the request has " + std::to_string(n));
    }
    x.items.emplace();
    for (size_t i = 0; i < value.size(); ++i) {
      const std::string ip = p + "/" + std::to_string(i);
      const json& item = value[i];
      if (!item.is_object()) {
        r_.fail(ip, "expected {\"status\", \"message_id\"?}");
        continue;
      }
      r_.only(item, ip, {"status", "message_id"});
      ItemExpect ie;
      if (auto st = r_.string(item, ip, "status", true)) {
        if (*st != "queued" && *st != "duplicate" && *st != "error" && *st != "timeout") {
          r_.fail(ip + "/status", "expected \"queued\", \"duplicate\", \"error\" or \"timeout\"");
        }
        ie.status = *st;
      }
      if (auto id = r_.string(item, ip, "message_id", false)) {
        message_ref(*id, ip + "/message_id");
        ie.message_id = *id;
      }
      x.items->push_back(std::move(ie));
    }
  }

  void message_ref(const std::string& id, const std::string& p) {
    if (id == "zero" || id == "new" || impl::parse_uuid(id)) return;
    if (id.size() > 1 && id[0] == '@') {
      const auto slash = id.find('/');
      const std::string step = id.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
      const auto it = ids_.find(step);
      if (it == ids_.end() || it->second != Op::push) {
        return r_.fail(p, "\"" + id + "\" refers to step \"" + step + "\", which is not a push step of this file");
      }
      if (slash == std::string::npos || slash + 1 >= id.size() ||
          id.find_first_not_of("0123456789", slash + 1) != std::string::npos || id.size() - slash > 7) {
        return r_.fail(p, "expected \"@STEP/INDEX\" with a numeric index");
      }
      const int64_t index = std::stoll(id.substr(slash + 1));
      const int64_t n = push_counts_[step];
      if (n >= 0 && index >= n) {
        r_.fail(p, "\"" + id + "\": step \"" + step + "\" has only " + std::to_string(n) + " items");
      }
      return;
    }
    r_.fail(p, "expected \"@STEP/INDEX\", \"zero\", \"new\" or a UUID");
  }

  void stored(const json& value, const std::string& p, Scenario& s) {
    if (!value.is_object()) return r_.fail(p, "expected {\"queue/partition\": N}");
    for (const auto& [key, n] : value.items()) {
      const auto slash = key.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == key.size() || slash > impl::kMaxNameBytes ||
          key.size() - slash - 1 > impl::kMaxNameBytes) {
        r_.fail(p + "/" + key, "expected a \"queue/partition\" key (names of 1-255 bytes)");
        continue;
      }
      if (!n.is_number_integer() || (!n.is_number_unsigned() && n.get<int64_t>() < 0)) {
        r_.fail(p + "/" + key, "expected an integer >= 0");
        continue;
      }
      if (n.is_number_unsigned() && n.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        r_.fail(p + "/" + key, "must be <= " + std::to_string(INT64_MAX));
        continue;
      }
      s.expect_stored.push_back({{key.substr(0, slash), key.substr(slash + 1)}, n.get<int64_t>()});
    }
  }

  // Steps and virtual time of the script as run (repeats unrolled), saturated
  // just past the bounds so that nested repeats cannot overflow.
  struct RunSize {
    int64_t steps = 0;
    int64_t advance_ms = 0;
    int64_t attempts = 0;     // push deliveries, retries included: what costs wall time
    int64_t items_bytes = 0;  // pushed items as JSON text: what costs memory
    int64_t crashes = 0;      // crash_storage steps: each costs what storage holds
  };
  static int64_t saturated(int64_t a, int64_t b, int64_t max) { return std::min(a + b, max + 1); }
  static int64_t saturated_times(int64_t a, int64_t times, int64_t max) {
    return a > 0 && times > (max + 1) / a ? max + 1 : std::min(a * times, max + 1);
  }
  static RunSize run_size(const std::vector<Step>& steps) {
    RunSize total;
    for (const Step& s : steps) {
      RunSize one{1, s.op == Op::advance ? s.advance_ms : 0, s.op == Op::push ? int64_t{s.retry.attempts} : 0,
                  s.op == Op::push ? static_cast<int64_t>(impl::json_text_bytes(s.items)) : 0,
                  s.op == Op::crash_storage ? 1 : 0};
      if (!s.children.empty()) {
        const RunSize inner = run_size(s.children);
        const int64_t times = s.op == Op::repeat ? s.times : 1;
        one.steps += saturated_times(inner.steps, times, kMaxExecutedSteps);
        // parallel children overlap in time; counting their sum only overestimates.
        one.advance_ms = saturated_times(inner.advance_ms, times, kMaxAdvanceMs);
        one.attempts = saturated_times(inner.attempts, times, kMaxExecutedAttempts);
        one.items_bytes = saturated_times(inner.items_bytes, times, kMaxPushedItemsBytes);
        one.crashes = saturated_times(inner.crashes, times, kMaxStorageCrashes);
      }
      total.steps = saturated(total.steps, one.steps, kMaxExecutedSteps);
      total.advance_ms = saturated(total.advance_ms, one.advance_ms, kMaxAdvanceMs);
      total.attempts = saturated(total.attempts, one.attempts, kMaxExecutedAttempts);
      total.items_bytes = saturated(total.items_bytes, one.items_bytes, kMaxPushedItemsBytes);
      total.crashes = saturated(total.crashes, one.crashes, kMaxStorageCrashes);
    }
    return total;
  }

  void check_run_size(const Scenario& s) {
    const RunSize size = run_size(s.steps);
    if (size.steps > kMaxExecutedSteps) {
      r_.fail("/steps", "with repeats unrolled the script runs more than " + std::to_string(kMaxExecutedSteps) +
                            " steps");
    }
    if (size.advance_ms > kMaxAdvanceMs) {
      r_.fail("/steps", "with repeats unrolled the script advances virtual time by more than ten years");
    }
    if (size.attempts > kMaxExecutedAttempts) {
      r_.fail("/steps", "with repeats unrolled the script makes more than " + std::to_string(kMaxExecutedAttempts) +
                            " push attempts (retry.attempts counted)");
    }
    if (size.items_bytes > kMaxPushedItemsBytes) {
      r_.fail("/steps", "with repeats unrolled the script pushes more than " +
                            std::to_string(kMaxPushedItemsBytes >> 20) + " MiB of items");
    }
    if (size.crashes > kMaxStorageCrashes) {
      r_.fail("/steps", "with repeats unrolled the script runs more than " + std::to_string(kMaxStorageCrashes) +
                            " crash_storage steps");
    } else if (size.items_bytes <= kMaxPushedItemsBytes && size.crashes * size.items_bytes > kMaxRecoveredItemsBytes) {
      // Both factors are bounded here, so the product cannot overflow.
      r_.fail("/steps", "with repeats unrolled the script's crash_storage steps times the bytes of items it pushes is "
                        "more than " + std::to_string(kMaxRecoveredItemsBytes >> 20) +
                            " MiB (each crash records what storage recovered)");
    }
  }

  void check_brokers(const Scenario& s) {
    for (const auto& [path, broker] : brokers_used_) {
      if (broker >= s.world.brokers) {
        r_.fail(path, "broker " + std::to_string(broker) + " does not exist (world.brokers is " +
                          std::to_string(s.world.brokers) + ")");
      }
    }
  }

  Reader& reader() { return r_; }

 private:
  Reader r_;
  std::map<std::string, Op> ids_;
  int repeat_depth_ = 0;  // > 0 while loading the children of a repeat
  bool file_storage_ = false;  // world.storage.path names a file (crash_storage needs one)
  std::map<std::string, int64_t> push_counts_;  // item count, -1 when items is not an array
  std::vector<std::pair<std::string, uint32_t>> brokers_used_;
};

}  // namespace

void NetworkChange::apply(NetworkConfig& config) const {
  if (latency_ms) {
    config.latency_ms_min = latency_ms->first;
    config.latency_ms_max = latency_ms->second;
  }
  if (loss_request_ppm) config.loss_request_ppm = *loss_request_ppm;
  if (loss_response_ppm) config.loss_response_ppm = *loss_response_ppm;
  if (duplicate_ppm) config.duplicate_ppm = *duplicate_ppm;
}

LoadResult load_scenario_text(const std::string& text, const std::string& file) {
  LoadResult result;
  JsonInput parsed = parse_json_input(text);
  if (!parsed.doc) {
    result.errors.push_back({file, parsed.path, parsed.reason});
    return result;
  }
  return load_scenario_document(*parsed.doc, file, true);
}

LoadResult load_scenario_document(const json& doc, const std::string& file, bool check_schema) {
  LoadResult result;
  // Two validators: the semantic rules in code, then the schema (what
  // editors check). The code's messages name the field and the rule more
  // precisely than a failed oneOf, so they are reported first; the schema
  // runs only when the code found nothing, after the code has bounded every
  // string a schema pattern reads (libstdc++'s std::regex, which valijson
  // uses, recurses once per character and overflows the stack on long ones).

  Scenario s;
  s.file = file;
  Loader loader(file, result.errors);
  Reader& r = loader.reader();
  if (!doc.is_object()) {
    r.fail("/", "expected a scenario object");
    return result;
  }
  r.only(doc, "", {"name", "description", "seed", "world", "queues", "steps", "expect"});
  if (auto v = r.string(doc, "", "name", false)) s.name = *v;
  if (s.name.empty()) {
    const auto slash = file.find_last_of('/');
    s.name = file.substr(slash == std::string::npos ? 0 : slash + 1);
    if (s.name.size() > 5 && s.name.substr(s.name.size() - 5) == ".json") s.name.resize(s.name.size() - 5);
  }
  if (auto v = r.string(doc, "", "description", false)) s.description = *v;
  // Seeds span the whole unsigned 64-bit range (campaigns draw them so).
  if (auto it = doc.find("seed"); it != doc.end() && it->is_number_unsigned()) {
    s.seed = it->get<uint64_t>();
  } else if (auto v = r.integer(doc, "", "seed", 0, INT64_MAX)) {
    s.seed = static_cast<uint64_t>(*v);
  }
  if (auto it = doc.find("world"); it != doc.end()) loader.world(*it, s);
  s.world.seed = s.seed;
  if (auto it = doc.find("queues"); it != doc.end()) {
    if (!it->is_object()) {
      r.fail("/queues", "expected an object of queue name -> options");
    } else {
      for (const auto& [name, options] : it->items()) {
        impl::QueueOptions scratch;
        if (name.empty() || name.size() > impl::kMaxNameBytes) {
          r.fail("/queues/" + json_pointer_token(name), "a queue name is 1-" + std::to_string(impl::kMaxNameBytes) + " bytes");
        }
        if (auto error = impl::apply_options(options, "/queues/" + name, scratch)) loader.bad_options(*error);
        else s.queues.emplace_back(name, options);
      }
    }
  }
  if (!doc.contains("steps")) r.fail("/steps", "required");
  else loader.steps(doc["steps"], "/steps", s.steps, false);
  if (auto it = doc.find("expect"); it != doc.end()) loader.expect(*it, s);
  loader.check_brokers(s);
  if (result.errors.empty()) loader.check_run_size(s);
  if (result.errors.empty() && check_schema) result.errors = schema_errors(doc, file);
  if (result.errors.empty()) result.scenario = std::move(s);
  return result;
}

LoadResult load_scenario_file(const std::string& file) {
  std::string reason;
  const std::optional<std::string> text = read_input_file(file, reason);
  if (!text) return LoadResult{std::nullopt, {{file, "/", reason}}};
  return load_scenario_text(*text, file);
}

// The names are the loader's own tables read backwards, so they cannot drift.
std::string op_name(Op op) {
  for (const auto& [name, o] : op_names()) {
    if (o == op) return name;
  }
  assert(false && "every Op has a name");
  return "?";
}

std::string storage_op_name(StorageOpKind kind) {
  for (const auto& [name, k] : storage_op_names()) {
    if (k == kind) return name;
  }
  assert(false && "every StorageOpKind has a name");
  return "?";
}

}  // namespace qdt::sim
