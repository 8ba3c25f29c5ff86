#include "impl/json_text.h"

#include <array>
#include <charconv>
#include <string_view>

namespace qdt::impl {
namespace {

// nlohmann's own text of `value`, appended.
void append_dumped(std::string& out, const nlohmann::json& value) {
  nlohmann::detail::serializer<nlohmann::json> s(nlohmann::detail::output_adapter<char>(out), ' ',
                                                 nlohmann::json::error_handler_t::strict);
  s.dump(value, false, false, 0);
}

// Bytes nlohmann writes between quotes unchanged: printable ASCII but the
// quote and the backslash. A table: one load a byte where four compares
// were (the trace writes every request's body through here).
constexpr std::array<bool, 256> kPlainByte = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x7f; ++c) t[static_cast<size_t>(c)] = c != '"' && c != '\\';
  return t;
}();

// True when nlohmann writes `text` between quotes unchanged.
bool plain(std::string_view text) {
  bool all = true;
  for (const char c : text) all &= kPlainByte[static_cast<unsigned char>(c)];
  return all;
}

// `before` (0: none), the text quoted as nlohmann quotes it, then `after`
// (0: none). A short plain text, the usual one, is copied and checked in one
// pass into a buffer and appended at once: three or four appends per key
// were most of a request body's cost in the trace.
void append_string(std::string& out, std::string_view text, char before = 0, char after = 0) {
  constexpr size_t kBufferBytes = 128;
  if (text.size() + 4 <= kBufferBytes) {
    char buffer[kBufferBytes];
    size_t n = 0;
    if (before != 0) buffer[n++] = before;
    buffer[n++] = '"';
    bool all = true;
    for (const char c : text) {
      all &= kPlainByte[static_cast<unsigned char>(c)];
      buffer[n++] = c;
    }
    if (all) {
      buffer[n++] = '"';
      if (after != 0) buffer[n++] = after;
      out.append(buffer, n);
      return;
    }
  }
  if (before != 0) out.push_back(before);
  if (plain(text)) {
    out.push_back('"');
    out.append(text);
    out.push_back('"');
  } else {
    append_dumped(out, nlohmann::json(std::string(text)));
  }
  if (after != 0) out.push_back(after);
}

template <typename Integer>
void append_integer(std::string& out, Integer n) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out.append(buf, end);
}

}  // namespace

void append_json(std::string& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      bool first = true;
      for (const auto& [key, member] : value.get_ref<const nlohmann::json::object_t&>()) {
        append_string(out, key, first ? '{' : ',', ':');  // {"key": or ,"key":
        first = false;
        append_json(out, member);
      }
      if (first) out.push_back('{');
      out.push_back('}');
      return;
    }
    case nlohmann::json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& element : value) {
        if (!first) out.push_back(',');
        first = false;
        append_json(out, element);
      }
      out.push_back(']');
      return;
    }
    case nlohmann::json::value_t::string: append_string(out, value.get_ref<const std::string&>()); return;
    case nlohmann::json::value_t::number_integer: append_integer(out, value.get<int64_t>()); return;
    case nlohmann::json::value_t::number_unsigned: append_integer(out, value.get<uint64_t>()); return;
    case nlohmann::json::value_t::boolean: out.append(value.get<bool>() ? "true" : "false"); return;
    case nlohmann::json::value_t::null: out.append("null"); return;
    default: append_dumped(out, value); return;  // floats, binary, discarded
  }
}

size_t json_text_bytes(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      const auto& members = value.get_ref<const nlohmann::json::object_t&>();
      size_t bytes = 2 + (members.empty() ? 0 : members.size() - 1);  // braces, commas
      for (const auto& [key, member] : members) {
        bytes += (plain(key) ? key.size() + 2 : nlohmann::json(key).dump().size()) + 1 + json_text_bytes(member);
      }
      return bytes;
    }
    case nlohmann::json::value_t::array: {
      size_t bytes = 2 + (value.empty() ? 0 : value.size() - 1);
      for (const auto& element : value) bytes += json_text_bytes(element);
      return bytes;
    }
    case nlohmann::json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      return plain(text) ? text.size() + 2 : value.dump().size();
    }
    case nlohmann::json::value_t::null: return 4;
    case nlohmann::json::value_t::boolean: return value.get<bool>() ? 4 : 5;
    default: {  // numbers and the rest: short texts, written to count them
      std::string text;
      append_json(text, value);
      return text.size();
    }
  }
}

std::string json_text(const nlohmann::json& value) {
  std::string out;
  append_json(out, value);
  return out;
}

}  // namespace qdt::impl
