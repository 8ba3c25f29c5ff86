#pragma once
// The idempotency key's identity in storage (docs/semantics.md §2.3): xxh3-128 of the
// transactionId, 16 bytes, big-endian (high 64 bits first).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace qdt::impl {

struct Hash128 {
  std::array<uint8_t, 16> bytes{};
  auto operator<=>(const Hash128&) const = default;
};

Hash128 hash_transaction_id(std::string_view transaction_id);
std::string to_hex(const Hash128& hash);

}  // namespace qdt::impl
