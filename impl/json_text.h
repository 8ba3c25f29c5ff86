#pragma once
// A JSON value's compact text, byte for byte what nlohmann's dump() gives
// (no indent, UTF-8 kept as is, strict on invalid UTF-8), appended to a
// string. Every pushed item's payload is stored as this text and every
// request's body is hashed into the trace as it: nlohmann escapes a string
// one decoded code point at a time, which dominates short strings. Strings
// of printable ASCII without '"' or '\' (nearly all: names, keys, ids) are
// copied as they are; anything else (escapes, non-ASCII, floats, binary)
// goes through nlohmann's own serializer, so the text cannot differ.
#include <nlohmann/json.hpp>
#include <string>

namespace qdt::impl {

void append_json(std::string& out, const nlohmann::json& value);
std::string json_text(const nlohmann::json& value);
// json_text(value).size(), without building the text (a scenario's pushed
// bytes are bounded before it runs).
size_t json_text_bytes(const nlohmann::json& value);

}  // namespace qdt::impl
