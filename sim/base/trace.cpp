#include "sim/base/trace.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>

#include "impl/json_text.h"

namespace qdt::sim {
namespace {
// An int64_t in decimal, sign included.
constexpr size_t kMaxDigits = 20;
}  // namespace

Trace::Trace(bool keep_text) : state_(XXH3_createState()), keep_text_(keep_text) {
  assert(state_ != nullptr);
  XXH3_128bits_reset(state_);
  line_.resize(256);
}

Trace::~Trace() { XXH3_freeState(state_); }

char* Trace::extend(size_t bytes) {
  if (line_.size() - length_ < bytes) line_.resize(std::max(2 * line_.size(), length_ + bytes));
  return line_.data() + length_;
}

char* Trace::put(char* at, std::string_view text) {
  std::memcpy(at, text.data(), text.size());
  return at + text.size();
}

Trace& Trace::begin(int64_t t_ms, std::string_view kind) {
  length_ = 0;
  char* at = extend(kMaxDigits + 1 + kind.size());
  at = std::to_chars(at, at + kMaxDigits, t_ms).ptr;
  *at++ = ' ';
  at = put(at, kind);
  length_ = static_cast<size_t>(at - line_.data());
  return *this;
}

Trace& Trace::field(std::string_view key, std::string_view value) {
  char* at = extend(key.size() + value.size() + 2);
  *at++ = ' ';
  at = put(at, key);
  *at++ = '=';
  at = put(at, value);
  length_ = static_cast<size_t>(at - line_.data());
  return *this;
}

Trace& Trace::field(std::string_view key, std::string_view first, char separator, std::string_view second) {
  char* at = extend(key.size() + first.size() + second.size() + 3);
  *at++ = ' ';
  at = put(at, key);
  *at++ = '=';
  at = put(at, first);
  *at++ = separator;
  at = put(at, second);
  length_ = static_cast<size_t>(at - line_.data());
  return *this;
}

Trace& Trace::field(std::string_view key, int64_t value) {
  char* at = extend(key.size() + 2 + kMaxDigits);
  *at++ = ' ';
  at = put(at, key);
  *at++ = '=';
  at = std::to_chars(at, at + kMaxDigits, value).ptr;
  length_ = static_cast<size_t>(at - line_.data());
  return *this;
}

Trace& Trace::field_json(std::string_view key, const nlohmann::json& value) {
  // What value.dump() returns: a request's body is the trace's longest field.
  json_.clear();
  impl::append_json(json_, value);
  return field(key, json_);
}

Trace& Trace::raw(std::string_view text) {
  char* at = extend(text.size() + 1);
  *at++ = ' ';
  at = put(at, text);
  length_ = static_cast<size_t>(at - line_.data());
  return *this;
}

void Trace::end() {
  *extend(1) = '\n';
  ++length_;
  XXH3_128bits_update(state_, line_.data(), length_);
  if (keep_text_) text_.append(line_.data(), length_);
  ++lines_;
}

std::string Trace::hash_hex() const {
  const XXH128_hash_t h = XXH3_128bits_digest(state_);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (uint64_t word : {h.high64, h.low64}) {
    for (int shift = 60; shift >= 0; shift -= 4) out.push_back(kDigits[(word >> shift) & 15]);
  }
  return out;
}

}  // namespace qdt::sim
