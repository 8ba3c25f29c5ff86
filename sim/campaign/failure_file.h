#pragma once
// A campaign failure as a file: the failing scenario, shrunk (shrink.h), with
// an `expect` block stating what the reference implementation answers, and
// the one command line that replays it.
#include <nlohmann/json.hpp>
#include <string>

#include "impl/variant.h"
#include "sim/world/world_config.h"
#include "sim/campaign/campaign.h"

namespace qdt::sim {

// Adds the reference implementation's answers for top-level push and ack
// steps as `expect` (left out when the reference itself fails the scenario).
// A world.variant the scenario names is dropped: the reference runs it, and
// the returned scenario replays the reference.
nlohmann::json with_reference_expectations(nlohmann::json scenario,
                                          StorageEngineKind engine = StorageEngineKind::sqlite);

struct FailureFile {
  std::string path;    // OUT_DIR/PROFILE-SEED-PROPERTY.json
  std::string replay;  // replay_command(): "qdt replay PATH [--variant NAME] [--storage postgres ...]"
  bool written = false;
  int steps = 0;        // of the shrunk scenario, children included
  int shrink_runs = 0;  // replays spent shrinking
};

// Shrinks `failed` (a failing check_seed outcome of `profile` under
// `variant`) and writes it below `out_dir`, creating the folder. A write
// error is reported on stderr and leaves `written` false.
// `engine`: the campaign's --storage; shrinking and the reference run on it.
FailureFile write_failure_file(const SeedOutcome& failed, const std::string& profile, impl::Variant variant,
                               const std::string& out_dir, StorageEngineKind engine = StorageEngineKind::sqlite);

}  // namespace qdt::sim
