#include "impl/hash.h"

#include <xxhash.h>

namespace qdt::impl {

Hash128 hash_transaction_id(std::string_view transaction_id) {
  const XXH128_hash_t h = XXH3_128bits(transaction_id.data(), transaction_id.size());
  Hash128 out;
  for (int i = 0; i < 8; ++i) {
    out.bytes[i] = static_cast<uint8_t>(h.high64 >> (56 - 8 * i));
    out.bytes[8 + i] = static_cast<uint8_t>(h.low64 >> (56 - 8 * i));
  }
  return out;
}

std::string to_hex(const Hash128& hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(32);
  for (uint8_t b : hash.bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

}  // namespace qdt::impl
