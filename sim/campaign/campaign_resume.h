#pragma once
// Continuing a journaled campaign (qdt check --resume DIR): the journal
// defines the campaign, the command line only how it runs.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "impl/variant.h"
#include "sim/base/outcome.h"
#include "sim/campaign/campaign_options.h"

namespace qdt::sim {

// qdt check --resume DIR: reads DIR/journal (campaign_journal.h) and runs the
// campaign's seeds not yet journaled, with options' jobs, output flags and
// time budget; the summary covers the whole campaign. The campaign's variant
// goes to `variant` when given. The engine is the journal's: `engine`, the
// command line's --storage when given, must be it. Exit 2, nothing run,
// without a readable journal or with the other engine.
Outcome resume_campaign(CampaignOptions options, uint64_t jobs, const WallClock& wall, nlohmann::json* summary,
                        impl::Variant* variant, std::optional<StorageEngineKind> engine = std::nullopt);

}  // namespace qdt::sim
