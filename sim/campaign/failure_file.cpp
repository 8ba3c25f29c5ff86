#include "sim/campaign/failure_file.h"

#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>

#include "sim/base/atomic_file.h"
#include "sim/base/file_name.h"
#include "sim/campaign/shrink.h"
#include "sim/scenario/replay_line.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

using json = nlohmann::json;

json with_reference_expectations(json scenario, StorageEngineKind engine) {
  scenario.erase("expect");
  // The reference's answers, in a file that runs the reference: a
  // world.variant the scenario names is dropped.
  if (scenario.contains("world") && scenario["world"].is_object()) {
    scenario["world"].erase("variant");
    if (scenario["world"].empty()) scenario.erase("world");
  }
  const std::optional<RunResult> reference = run_document(scenario, impl::Variant::none, true, true, true, engine);
  if (!reference || !reference->passed) return scenario;
  json expect = json::object();
  // Every push and ack with an id, those inside parallel and sequence steps too.
  const std::function<void(const json&)> add = [&](const json& steps) {
    for (const json& s : steps) {
      if (s.contains("steps")) add(s["steps"]);
      const std::string op = s.value("op", "");
      if (!s.contains("id") || (op != "push" && op != "ack")) continue;
      const std::string id = s["id"];
      const auto found = reference->step_responses.find(id);
      if (found == reference->step_responses.end()) continue;
      const json& response = found->second;
      if (op == "ack") {
        expect[id] = {{"status", response["status"]}};
      } else if (response.is_array()) {
        json items = json::array();
        for (const json& item : response) {
          json e = {{"status", item["status"]}};
          if (item["message_id"] == "00000000-0000-0000-0000-000000000000" && item["status"] == "duplicate") {
            e["message_id"] = "zero";
          }
          items.push_back(e);
        }
        expect[id] = items;
      }
    }
  };
  add(scenario["steps"]);
  // What the reference stored, partition by partition.
  if (!reference->stored.empty()) {
    json stored = json::object();
    for (const auto& [partition, messages] : reference->stored) stored[partition] = messages;
    expect["stored"] = stored;
  }
  scenario["expect"] = expect;
  return scenario;
}

FailureFile write_failure_file(const SeedOutcome& failed, const std::string& profile, impl::Variant variant,
                               const std::string& out_dir, StorageEngineKind engine) {
  namespace fs = std::filesystem;
  const std::string variant_flag = (variant == impl::Variant::none ? "" : " --variant " + impl::variant_name(variant)) +
                                   storage_flags(engine);
  const Shrunk shrunk = shrink(failed.scenario, variant, failed.signature, 3000, engine);
  json doc = with_reference_expectations(shrunk.scenario, engine);
  // The file is named after it: one clean path component inside out_dir.
  doc["name"] = file_name_part(profile + "-" + std::to_string(failed.seed) + "-" + failed.signature);
  doc["description"] = "Shrunk from qdt check --profile " + profile + " --seed " + std::to_string(failed.seed) +
                       variant_flag + ": fails " + failed.signature +
                       ". expect states what the reference implementation answers.";
  FailureFile out;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  out.path = (fs::path(out_dir) / (doc["name"].get<std::string>() + ".json")).string();
  std::string error;
  // Atomic: a campaign killed while writing leaves the whole file or none.
  out.written = write_file_atomically(out.path, doc.dump(2) + "\n", &error);
  if (!out.written) std::cerr << "error: " << error << "\n";
  out.replay = replay_command({out.path, variant, "", engine});
  out.steps = count_steps(doc);
  out.shrink_runs = shrunk.runs;
  return out;
}

}  // namespace qdt::sim
