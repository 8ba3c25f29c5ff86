#pragma once
// The schemas of the files a campaign reads back (sim/campaign/schema/): a
// qdt check --json summary, which --merge combines and whose shape every
// journal part has, and a journal's campaign.json. Each file is checked
// against its schema before any of its fields is read, so the code after the
// check may assume the shapes the schema states; the code rules each schema's
// description lists are checked by the readers (campaign_merge.h,
// campaign_journal.h).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/base/load_error.h"

namespace qdt::sim {

// At most CompiledSchema::kErrorsMax errors naming `file`; empty when `doc` matches.
std::vector<LoadError> summary_schema_errors(const nlohmann::json& doc, const std::string& file);
std::vector<LoadError> journal_schema_errors(const nlohmann::json& doc, const std::string& file);

// The schema documents, embedded at configure time (campaign_schema_text.cpp.in).
const std::string& summary_schema_text();
const std::string& journal_schema_text();

}  // namespace qdt::sim
