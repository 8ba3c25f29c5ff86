#include "sim/base/json_schema.h"

#include <algorithm>
#include <set>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace qdt::sim {

std::string json_pointer_of(const std::vector<std::string>& context) {
  std::string out;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    std::string name = part;
    if (name.size() >= 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    out += "/" + name;
  }
  return out.empty() ? "/" : out;
}

CompiledSchema::CompiledSchema(const std::string& text, std::string what)
    : schema_(std::make_unique<valijson::Schema>()),
      validator_(std::make_unique<valijson::Validator>()),
      what_(std::move(what)) {
  const nlohmann::json doc = nlohmann::json::parse(text);
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(doc);
  parser.populateSchema(adapter, *schema_);
}

CompiledSchema::~CompiledSchema() = default;

std::vector<LoadError> CompiledSchema::errors(const nlohmann::json& doc, const std::string& file) const {
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (validator_->validate(*schema_, target, &results)) return {};
  std::vector<valijson::ValidationResults::Error> all;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) all.push_back(error);
  size_t deepest = 0;
  for (const auto& e : all) deepest = std::max(deepest, e.context.size());
  std::vector<LoadError> out;
  std::set<std::string> seen;
  for (size_t depth = deepest + 1; depth-- > 0 && out.empty();) {
    for (const auto& e : all) {
      if (e.context.size() != depth || out.size() >= kErrorsMax) continue;
      LoadError le{file, json_pointer_of(e.context), e.description};
      if (seen.insert(le.path + le.reason).second) out.push_back(le);
    }
  }
  if (out.empty()) out.push_back({file, "/", "does not match the " + what_});
  return out;
}

}  // namespace qdt::sim
