#pragma once
// Parsing a JSON document a person or another program wrote (scenario, sweep,
// campaign summary) within bounds, so that no input can crash or exhaust qdt:
// nlohmann's copy and valijson's validation recurse once per nesting level, so
// a deep document overflows the stack; nlohmann keeps the last of duplicate
// keys silently. Errors name a JSON pointer and the reason, like LoadError.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace qdt::sim {

// Real documents nest a handful of levels (a push's data, a repeat's steps);
// this leaves room for generous payloads and is far from any stack's limit.
inline constexpr size_t kMaxJsonDepth = 64;
// The largest input document read at all (a scenario, sweep or summary).
inline constexpr size_t kMaxJsonBytes = size_t{64} << 20;

struct JsonInput {
  std::optional<nlohmann::json> doc;  // set exactly when the text is accepted
  std::string path;    // JSON pointer of the fault ("/" for the whole document)
  std::string reason;  // "not valid JSON: ...", "nested deeper than 64 levels", "duplicate key"
};

// Parses `text` whole (a UTF-8 byte-order mark is skipped, as RFC 8259
// allows); rejects invalid JSON, invalid UTF-8, NaN and Infinity literals,
// nesting deeper than kMaxJsonDepth and an object key written twice.
JsonInput parse_json_input(const std::string& text);

// Reads a whole input file: a regular file (not a FIFO or a device, which
// could block or never end) of at most kMaxJsonBytes. nullopt with `reason`
// set when it cannot.
std::optional<std::string> read_input_file(const std::string& file, std::string& reason);

// Why `file` is not a regular file to read ("no such file or folder", "not a
// regular file (a FIFO)", ...), or nullopt when it is one.
std::optional<std::string> input_file_problem(const std::string& file);

// "~" and "/" escaped as RFC 6901 says, so a key cannot forge a path.
std::string json_pointer_token(const std::string& key);

}  // namespace qdt::sim
