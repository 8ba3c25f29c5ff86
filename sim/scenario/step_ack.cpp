#include "sim/scenario/step_ack.h"

#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  AckArgs& a = s.args.emplace<AckArgs>();
  r.only(j, p, {"op", "id", "queue", "partition", "transactionId", "consumerGroup"});
  a.queue = r.name(j, p, "queue", true).value_or("");
  if (auto v = r.name(j, p, "partition", false)) a.partition = *v;
  if (auto v = r.name(j, p, "transactionId", true)) a.transaction_id = *v;
  if (auto v = r.name(j, p, "consumerGroup", false)) a.consumer_group = *v;
}

void run(StepRunner& runner, const Step& s, uint64_t) {
  const AckArgs& a = s.as<AckArgs>();
  impl::AckResult r;
  if (runner.failed_in_storage(s, [&] {
        r = runner.world().admin().ack(s.id, a.queue, a.partition, a.transaction_id, a.consumer_group);
      })) {
    return;
  }
  json response = {{"status", r.acked ? "acked" : "unresolvable"}};
  if (r.acked) {
    response["offset"] = r.offset;
    response["message_id"] = r.message_id ? impl::to_string(*r.message_id) : impl::kZeroUuidText;
  }
  runner.outcomes().responses[s.id] = std::move(response);
}

std::string summary(const Step& s) {
  const AckArgs& a = s.as<AckArgs>();
  return a.queue + "/" + a.partition + " txn " + a.transaction_id + ", group " + a.consumer_group;
}

void read_expect(StepLoader& loader, const json& value, const std::string& p, const std::string&, StepExpect& x) {
  JsonReader& r = loader.reader();
  if (!value.is_object()) return r.fail(p, "an ack expectation is {\"status\": \"acked\"|\"unresolvable\"|\"error\"}");
  r.only(value, p, {"status"});
  x.ack_status = r.string(value, p, "status", true);
  // "error": an injected storage fault failed the ack (storage_fail target "ack").
  if (x.ack_status && *x.ack_status != "acked" && *x.ack_status != "unresolvable" && *x.ack_status != "error") {
    r.fail(p + "/status", "expected \"acked\", \"unresolvable\" or \"error\"");
  }
}

}  // namespace

const StepKind ack_step{.name = "ack", .read = read, .run = run, .summary = summary, .read_expect = read_expect};

}  // namespace qdt::sim
