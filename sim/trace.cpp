#include "sim/trace.h"

#include <cassert>
#include <charconv>

#include "impl/json_text.h"

namespace qdt::sim {

Trace::Trace(bool keep_text) : state_(XXH3_createState()), keep_text_(keep_text) {
  assert(state_ != nullptr);
  XXH3_128bits_reset(state_);
  line_.reserve(256);
}

Trace::~Trace() { XXH3_freeState(state_); }

Trace& Trace::begin(int64_t t_ms, std::string_view kind) {
  line_.clear();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, t_ms);
  assert(ec == std::errc());
  line_.append(buf, end);
  line_.push_back(' ');
  line_.append(kind);
  return *this;
}

Trace& Trace::field(std::string_view key, std::string_view value) {
  line_.push_back(' ');
  line_.append(key);
  line_.push_back('=');
  line_.append(value);
  return *this;
}

Trace& Trace::field(std::string_view key, std::string_view first, char separator, std::string_view second) {
  line_.push_back(' ');
  line_.append(key);
  line_.push_back('=');
  line_.append(first);
  line_.push_back(separator);
  line_.append(second);
  return *this;
}

Trace& Trace::field(std::string_view key, int64_t value) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  assert(ec == std::errc());
  return field(key, std::string_view(buf, static_cast<size_t>(end - buf)));
}

Trace& Trace::field_json(std::string_view key, const nlohmann::json& value) {
  line_.push_back(' ');
  line_.append(key);
  line_.push_back('=');
  // What value.dump() returns, appended where it belongs: a request's body
  // is the trace's longest field.
  impl::append_json(line_, value);
  return *this;
}

Trace& Trace::raw(std::string_view text) {
  line_.push_back(' ');
  line_.append(text);
  return *this;
}

void Trace::end() {
  line_.push_back('\n');
  XXH3_128bits_update(state_, line_.data(), line_.size());
  if (keep_text_) text_.append(line_);
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
