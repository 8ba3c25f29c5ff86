#include "sim/scenario/step_crash_storage.h"

#include "sim/scenario/json_reader.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_loader.h"
#include "sim/scenario/step_runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

void read(StepLoader& loader, const json& j, const std::string& p, Step& s) {
  JsonReader& r = loader.reader();
  CrashStorageArgs& a = s.args.emplace<CrashStorageArgs>();
  r.only(j, p, {"op", "id", "torn"});
  if (auto v = r.boolean(j, p, "torn")) a.torn = *v;
  a.synchronous_off = loader.synchronous_off();
  // An in-memory database has no disk that could lose power.
  if (!loader.file_storage()) r.fail(p, "crash_storage needs file storage: set /world/storage/path to a file name");
}

void run(StepRunner& runner, const Step& s, uint64_t) { runner.world().crash_storage(s.as<CrashStorageArgs>().torn); }

std::string summary(const Step& s) {
  const CrashStorageArgs& a = s.as<CrashStorageArgs>();
  if (a.synchronous_off) return "storage loses power on synchronous off: nothing was synced, so every commit is lost";
  return std::string("storage loses power: unsynced writes dropped") + (a.torn ? ", the last one torn" : "") +
         ", then recovered from its journal";
}

StepCost cost(const Step&) { return {.crashes = 1}; }

}  // namespace

const StepKind crash_storage_step{
    .name = "crash_storage", .read = read, .run = run, .summary = summary, .fault = true, .cost = cost};

}  // namespace qdt::sim
