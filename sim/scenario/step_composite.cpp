#include "sim/scenario/step_composite.h"

#include <vector>

#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_push.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

void read_parallel(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  loader.reader().only(j, p, {"op", "id", "steps"});
  if (loader.nested()) loader.reader().fail(p + "/op", "parallel may not be nested inside parallel, sequence or repeat");
  loader.children(j, p, s, false);
}

void run_parallel(StepRunner& runner, const Step& s, uint64_t) {
  World& world = runner.world();
  std::vector<boost::fibers::fiber> fibers;
  fibers.reserve(s.children.size());
  for (const Step& child : s.children) {
    if (!is_push(child)) {
      fibers.push_back(world.spawn([&runner, &child] { runner.run(child); }));
      continue;
    }
    // A push child starts with its send, which touches only its
    // producer: concurrent producers' sends commute (schedule search).
    const uint64_t region = SeededScheduler::new_region();
    fibers.push_back(world.spawn(
        [&runner, &child, region] {
          runner.run(child, region);
          SeededScheduler::label_fiber_exit();  // World::push's last label ends here
        },
        region, world.send_footprint(child.as<PushArgs>().producer)));
  }
  for (auto& f : fibers) f.join();
}

std::string summary_parallel(const Step& s) { return std::to_string(s.children.size()) + " children run concurrently"; }

void read_sequence(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  loader.reader().only(j, p, {"op", "id", "steps"});
  loader.children(j, p, s, false);  // no parallel inside a sequence
}

void run_sequence(StepRunner& runner, const Step& s, uint64_t) {
  for (const Step& child : s.children) runner.run(child);
}

std::string summary_sequence(const Step& s) { return std::to_string(s.children.size()) + " children run in order"; }

void read_repeat(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  RepeatArgs& a = s.args.emplace<RepeatArgs>();
  r.only(j, p, {"op", "id", "times", "steps"});
  if (auto v = r.integer(j, p, "times", 1, kMaxRepeatTimes)) a.times = *v;
  else if (!j.contains("times")) r.fail(p + "/times", "required");
  loader.children(j, p, s, true);  // no parallel inside a repeat
}

void run_repeat(StepRunner& runner, const Step& s, uint64_t) {
  for (int64_t i = 0; i < s.as<RepeatArgs>().times; ++i) {
    for (const Step& child : s.children) runner.run(child);
  }
}

std::string summary_repeat(const Step& s) {
  return std::to_string(s.children.size()) + " children run in order, " + std::to_string(s.as<RepeatArgs>().times) +
         " times";
}

StepCost cost_repeat(const Step& s) { return {.times = s.as<RepeatArgs>().times}; }

}  // namespace

const StepKind parallel_step{.name = "parallel", .read = read_parallel, .run = run_parallel, .summary = summary_parallel};
const StepKind sequence_step{.name = "sequence", .read = read_sequence, .run = run_sequence, .summary = summary_sequence};
// The timeline has always listed a repeat among the fault steps; kept so its documents stay as they were.
const StepKind repeat_step{.name = "repeat",
                           .read = read_repeat,
                           .run = run_repeat,
                           .summary = summary_repeat,
                           .fault = true,
                           .cost = cost_repeat};

}  // namespace qdt::sim
