#include "impl/storage/postgres/ack_answer.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace qdt::impl::postgres {
namespace {

std::string hex(const Hash128& hash) {
  static const char* const digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : hash.bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// Whether `list` is an array of hex strings; sets `holds` when one is `want`.
bool hash_list(const nlohmann::json& list, const std::string& want, bool* holds) {
  if (!list.is_array()) return false;
  for (const nlohmann::json& item : list) {
    if (!item.is_string()) return false;
    std::string text = item.get<std::string>();
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text == want) *holds = true;
  }
  return true;
}

}  // namespace

AckAnswerRead read_ack_answer(const std::string& answer, const Hash128& hash) {
  AckAnswerRead out;
  const nlohmann::json json = nlohmann::json::parse(answer, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    out.problem = "an answer that is not a JSON object";
    return out;
  }
  const auto ok = json.find("ok");
  if (ok == json.end() || !ok->is_boolean()) {
    out.problem = "an answer without a boolean \"ok\"";
    return out;
  }
  if (!ok->get<bool>()) {
    const auto error = json.find("error");
    out.problem = "an error (" + (error != json.end() && error->is_string() ? error->get<std::string>() : "no reason") +
                  ") where the contract says a producer's ack resolves or is unresolvable";
    return out;
  }
  const std::string want = hex(hash);
  bool unresolved = false;
  bool noop = false;
  for (const char* key : {"unresolvedHashes", "noopHashes"}) {
    const auto list = json.find(key);
    if (list == json.end() || !hash_list(*list, want, key[0] == 'u' ? &unresolved : &noop)) {
      out.problem = std::string("an answer whose \"") + key + "\" is not an array of hashes";
      return out;
    }
  }
  if (unresolved && noop) {
    out.problem = "an answer that names the hash both unresolved and already acknowledged";
    return out;
  }
  out.resolved = !unresolved;
  return out;
}

}  // namespace qdt::impl::postgres
