#pragma once
// A JSON Schema (draft-07) compiled once, and validation through valijson
// whose errors are (JSON pointer, reason), deepest first: they name the field
// at fault rather than "oneOf failed". Scenario and sweep files share it.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/base/load_error.h"

namespace valijson {
class Schema;
class Validator;
}

namespace qdt::sim {

class CompiledSchema {
 public:
  // `text` is the schema document; `what` names it in the catch-all error.
  CompiledSchema(const std::string& text, std::string what);
  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;

  // At most kErrorsMax errors of `doc`, naming `file`; empty when it matches.
  static constexpr size_t kErrorsMax = 8;
  std::vector<LoadError> errors(const nlohmann::json& doc, const std::string& file) const;

 private:
  std::unique_ptr<valijson::Schema> schema_;
  // Kept across calls for its cache of compiled `pattern` regexes: a fresh
  // validator per document compiled every pattern again (std::regex), which
  // dominated scenario loading. Single-threaded use only, as everywhere in
  // qdt (campaign workers are processes).
  std::unique_ptr<valijson::Validator> validator_;
  std::string what_;
};

// valijson context ["<root>", "[steps]", "[0]"] -> "/steps/0"
std::string json_pointer_of(const std::vector<std::string>& context);

}  // namespace qdt::sim
