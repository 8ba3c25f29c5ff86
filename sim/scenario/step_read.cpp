// The `read` step: a partition's stored messages read from an offset.
#include <vector>

#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct ReadArgs {
  std::string queue;
  std::string partition = "Default";
  int64_t from = 0;
  int64_t limit = 0;  // 0 = all
};

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  ReadArgs& a = s.args.emplace<ReadArgs>();
  r.only(j, p, {"op", "id", "queue", "partition", "from", "limit"});
  a.queue = r.name(j, p, "queue", true).value_or("");
  if (auto v = r.name(j, p, "partition", false)) a.partition = *v;
  if (auto v = r.integer(j, p, "from", 0, INT64_MAX / 2)) a.from = *v;
  if (auto v = r.integer(j, p, "limit", 0, 1'000'000'000)) a.limit = *v;
}

void run(StepRunner& runner, const Step& s, uint64_t) {
  const ReadArgs& a = s.as<ReadArgs>();
  json messages = json::array();
  std::vector<impl::StoredMessage> read;
  if (runner.failed_in_storage(s, [&] {
        read = runner.world().admin().read(s.id, a.queue, a.partition, a.from, a.limit);
      })) {
    return;
  }
  for (const auto& m : read) {
    messages.push_back({{"offset", m.offset},
                        {"message_id", impl::to_string(m.message_id)},
                        {"transactionId", m.transaction_id},
                        {"data", json::parse(m.payload, nullptr, false)}});
  }
  runner.outcomes().responses[s.id] = {{"count", messages.size()}, {"messages", std::move(messages)}};
}

std::string summary(const Step& s) {
  const ReadArgs& a = s.as<ReadArgs>();
  return a.queue + "/" + a.partition + " from " + std::to_string(a.from) +
         (a.limit ? ", limit " + std::to_string(a.limit) : std::string(", no limit"));
}

void read_expect(StepLoader& loader, const json& value, const std::string& p, const std::string&, StepExpect& x) {
  JsonReader& r = loader.reader();
  if (!value.is_object()) return r.fail(p, "a read expectation is {\"count\": N} or {\"transactionIds\": [...]}");
  r.only(value, p, {"count", "transactionIds"});
  x.count = r.integer(value, p, "count", 0, INT64_MAX / 2);
  if (auto t = value.find("transactionIds"); t != value.end()) {
    if (!t->is_array()) return r.fail(p + "/transactionIds", "expected an array of strings");
    x.transaction_ids.emplace();
    for (size_t i = 0; i < t->size(); ++i) {
      if (!(*t)[i].is_string()) r.fail(p + "/transactionIds/" + std::to_string(i), "expected a string");
      else x.transaction_ids->push_back((*t)[i].get<std::string>());
    }
  }
  if (!x.count && !x.transaction_ids) r.fail(p, "expected \"count\" or \"transactionIds\"");
}

}  // namespace

extern const StepKind read_step;
const StepKind read_step{.name = "read", .read = read, .run = run, .summary = summary, .read_expect = read_expect};

}  // namespace qdt::sim
