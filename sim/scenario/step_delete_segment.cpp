// The `delete_segment` step: the segment of a partition covering an offset
// deleted through the admin path, as a fault would.
#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct DeleteSegmentArgs {
  std::string queue;
  std::string partition = "Default";
  int64_t offset = 0;
};

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  DeleteSegmentArgs& a = s.args.emplace<DeleteSegmentArgs>();
  r.only(j, p, {"op", "id", "queue", "partition", "offset"});
  a.queue = r.name(j, p, "queue", true).value_or("");
  if (auto v = r.name(j, p, "partition", false)) a.partition = *v;
  if (auto v = r.integer(j, p, "offset", 0, INT64_MAX / 2)) a.offset = *v;
  else if (!j.contains("offset")) r.fail(p + "/offset", "required");
}

void run(StepRunner& runner, const Step& s, uint64_t) {
  const DeleteSegmentArgs& a = s.as<DeleteSegmentArgs>();
  runner.resent_after_lost_connection(s, [&] { runner.world().admin().delete_segment(a.queue, a.partition, a.offset); });
}

std::string summary(const Step& s) {
  const DeleteSegmentArgs& a = s.as<DeleteSegmentArgs>();
  return "delete the segment of " + a.queue + "/" + a.partition + " covering offset " + std::to_string(a.offset);
}

}  // namespace

extern const StepKind delete_segment_step;
const StepKind delete_segment_step{.name = "delete_segment", .read = read, .run = run, .summary = summary, .fault = true};

}  // namespace qdt::sim
