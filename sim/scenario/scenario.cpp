#include "sim/scenario/scenario.h"

#include "sim/base/file_name.h"
#include "sim/base/json_input.h"
#include "sim/base/json_schema.h"
#include "sim/base/nearest_name.h"

#include <algorithm>
#include <cassert>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "impl/broker/push_request.h"
#include "impl/json_text.h"
#include "impl/queue_options.h"
#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_network.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;


}  // namespace

// Structural validation against the shipped schema. Reports the deepest
// errors first (they name the field at fault rather than "oneOf failed").
std::vector<LoadError> schema_errors(const json& doc, const std::string& file) {
  static const CompiledSchema schema(scenario_schema_text(), "scenario schema");
  return schema.errors(doc, file);
}

namespace {

class Loader {
 public:
  Loader(const std::string& file, std::vector<LoadError>& errors) : r_(file, errors) {}

  void world(const json& w, Scenario& s) {
    if (!w.is_object()) return r_.fail("/world", "expected an object");
    r_.only(w, "/world", {"brokers", "fusion", "bundles", "cache", "network", "storage", "variant", "schedule"});
    if (auto it = w.find("schedule"); it != w.end()) {
      for (const auto& [path, reason] : parse_schedule(*it, "/world/schedule", s.world.schedule)) r_.fail(path, reason);
    }
    if (auto v = r_.string(w, "/world", "variant", false)) {
      // A design variant (docs/semantics.md §7) the scenario runs against; --variant overrides it.
      if (auto variant = impl::parse_variant(*v)) {
        s.world.variant = *variant;
      } else {
        r_.fail("/world/variant", "unknown variant \"" + *v + "\"" + did_you_mean(*v, impl::variant_names()) +
                                      " (qdt mutants --list names them)");
      }
    }
    if (auto v = r_.boolean(w, "/world", "fusion")) s.world.fusion = *v;
    if (auto v = r_.boolean(w, "/world", "bundles")) s.world.bundles = *v;
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
      steps_.set_file_storage(s.world.storage.path != ":memory:");
      if (auto v = r_.string(*it, p, "synchronous", false)) {
        if (*v != "full" && *v != "normal" && *v != "off") {
          r_.fail(p + "/synchronous", "expected \"full\", \"normal\" or \"off\", got \"" + *v + "\"");
        } else if (!steps_.file_storage()) {
          r_.fail(p + "/synchronous", "applies to file storage only: set /world/storage/path to a file name");
        } else {
          s.world.storage.synchronous = *v;
          steps_.set_synchronous_off(*v == "off");
        }
      }
      if (auto v = r_.integer(*it, p, "purge_batch", 1, 1'000'000)) s.world.storage.purge_batch = *v;
      r_.latency(*it, p, s.world.storage.latency_ms_min, s.world.storage.latency_ms_max);
    }
  }

  void network(const json& n, const std::string& p, NetworkConfig& config) {
    NetworkChange change;
    read_network_change(r_, n, p, change);
    change.apply(config);
  }

  StepLoader& steps() { return steps_; }
  JsonReader& reader() { return r_; }

 private:
  JsonReader r_;
  StepLoader steps_{r_};
};

}  // namespace

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
  JsonReader& r = loader.reader();
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
        if (name.empty() || name.size() > impl::kMaxNameBytes) {
          r.fail("/queues/" + json_pointer_token(name), "a queue name is 1-" + std::to_string(impl::kMaxNameBytes) + " bytes");
        }
        r.note_sql_name(name, "/queues/" + json_pointer_token(name));
        if (r.queue_options(options, "/queues/" + json_pointer_token(name))) s.queues.emplace_back(name, options);
      }
    }
  }
  if (!doc.contains("steps")) r.fail("/steps", "required");
  else loader.steps().steps(doc["steps"], "/steps", s.steps);
  if (auto it = doc.find("expect"); it != doc.end()) loader.steps().expect(*it, s);
  loader.steps().check_brokers(s);
  if (result.errors.empty()) loader.steps().check_run_size(s);
  if (result.errors.empty() && check_schema) result.errors = schema_errors(doc, file);
  s.nul_name_path = r.nul_name_path();
  if (result.errors.empty()) result.scenario = std::move(s);
  return result;
}

LoadResult load_scenario_file(const std::string& file) {
  std::string reason;
  const std::optional<std::string> text = read_input_file(file, reason);
  if (!text) return LoadResult{std::nullopt, {{file, "/", reason}}};
  return load_scenario_text(*text, file);
}

std::string op_name(const Step& step) { return step.kind->name; }

}  // namespace qdt::sim
