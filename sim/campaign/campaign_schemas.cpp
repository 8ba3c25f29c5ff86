#include "sim/campaign/campaign_schemas.h"

#include "sim/base/json_schema.h"

namespace qdt::sim {

// Compiled on first use, once per process (CompiledSchema is single-threaded, as qdt is).
std::vector<LoadError> summary_schema_errors(const nlohmann::json& doc, const std::string& file) {
  static const CompiledSchema schema(summary_schema_text(), "qdt check --json summary schema");
  return schema.errors(doc, file);
}

std::vector<LoadError> journal_schema_errors(const nlohmann::json& doc, const std::string& file) {
  static const CompiledSchema schema(journal_schema_text(), "campaign journal schema");
  return schema.errors(doc, file);
}

}  // namespace qdt::sim
