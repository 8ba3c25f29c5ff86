#pragma once
// The canonical event log of a run: one text line per event, in the order the
// events happened in virtual time, each prefixed with the virtual millisecond.
// Its xxh3-128 is the run's trace hash: same scenario and seed, same hash, in
// one process or two. Lines are hashed as they are written; the text itself
// is kept only when asked for (--trace).
#include <xxhash.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace qdt::sim {

class Trace {
 public:
  explicit Trace(bool keep_text);
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  // Starts a line at virtual time `t_ms`; append fields, then end().
  Trace& begin(int64_t t_ms, std::string_view kind);
  Trace& field(std::string_view key, std::string_view value);
  Trace& field(std::string_view key, int64_t value);
  // key=first<separator>second, the same bytes as field(key, first + sep +
  // second) without the joined string (a push writes one per frame).
  Trace& field(std::string_view key, std::string_view first, char separator, std::string_view second);
  // key=value.dump(), serialized straight into the line.
  Trace& field_json(std::string_view key, const nlohmann::json& value);
  Trace& raw(std::string_view text);
  void end();

  std::string hash_hex() const;
  const std::string& text() const { return text_; }
  uint64_t lines() const { return lines_; }

 private:
  // Room for `bytes` more at line_[length_]; returns where to write.
  char* extend(size_t bytes);
  char* put(char* at, std::string_view text);

  XXH3_state_t* state_;
  bool keep_text_;
  // The line being written is line_[0, length_): line_ is kept at its full
  // size so a field is one capacity check and plain copies (a push writes
  // about 16 fields a message; string appends checked capacity per piece).
  std::string line_;
  size_t length_ = 0;
  std::string json_;  // field_json's text, reused
  std::string text_;
  uint64_t lines_ = 0;
};

}  // namespace qdt::sim
