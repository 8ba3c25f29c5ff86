#include "sim/scenario/step_storage_fail.h"

#include <cassert>
#include <map>

#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

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

// The name is the reader's own table read backwards, so they cannot drift.
std::string storage_op_name(StorageOpKind kind) {
  for (const auto& [name, k] : storage_op_names()) {
    if (k == kind) return name;
  }
  assert(false && "every StorageOpKind has a name");
  return "?";
}

// `count` (required), `target` (the kind of storage transaction hit; "op" is
// the step's own key), `after_statements`, `code`, `pg` (what the fault does
// to a PostgreSQL backend).
void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  StorageFault& fault = s.args.emplace<StorageFailArgs>().fault;
  r.only(j, p, {"op", "id", "count", "target", "after_statements", "code", "pg"});
  if (auto v = r.integer(j, p, "count", 1, kMaxStorageFailCount)) fault.count = *v;
  else if (!j.contains("count")) r.fail(p + "/count", "required");
  if (auto v = r.string(j, p, "target", false)) {
    const auto it = storage_op_names().find(*v);
    if (it != storage_op_names().end()) fault.op = it->second;
    else r.fail(p + "/target", "unknown storage transaction \"" + *v + "\" (expected " + kStorageOpNames + ")");
  }
  if (auto v = r.integer(j, p, "after_statements", 0, kMaxAfterStatements)) fault.after_statements = *v;
  if (auto v = r.string(j, p, "code", false)) {
    if (*v == "ioerr") fault.code = FaultCode::io_error;
    else if (*v == "full") fault.code = FaultCode::full;
    else r.fail(p + "/code", "unknown fault code \"" + *v + "\" (expected \"ioerr\" or \"full\")");
  }
  if (auto v = r.string(j, p, "pg", false)) {
    if (*v == "terminate") fault.pg = PgFaultAction::terminate;
    else if (*v == "cancel") fault.pg = PgFaultAction::cancel;
    else r.fail(p + "/pg", "unknown PostgreSQL fault \"" + *v + "\" (expected \"terminate\" or \"cancel\")");
  }
}

void run(StepRunner& runner, const Step& s, uint64_t) { runner.world().fail_storage(s.as<StorageFailArgs>().fault); }

std::string summary(const Step& s) {
  const StorageFault& f = s.as<StorageFailArgs>().fault;
  return "the next " + std::to_string(f.count) + " " + storage_op_name(f.op) + " transactions fail at statement " +
         std::to_string(f.after_statements) + " with " + (f.code == FaultCode::full ? "SQLITE_FULL" : "SQLITE_IOERR") +
         (f.pg == PgFaultAction::terminate ? " (on PostgreSQL, its backend ended before it)" : "");
}

}  // namespace

const StepKind storage_fail_step{.name = "storage_fail", .read = read, .run = run, .summary = summary, .fault = true};

}  // namespace qdt::sim
