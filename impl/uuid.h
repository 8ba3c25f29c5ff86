#pragma once
// Message ids (docs/semantics.md §2.1): UUIDv7 whose 48-bit millisecond timestamp comes from
// the broker's virtual clock and whose random bits come from the seeded
// generator, so ids are time-ordered and reproducible.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qdt::impl {

struct Uuid {
  std::array<uint8_t, 16> bytes{};
  auto operator<=>(const Uuid&) const = default;
  bool is_zero() const;
};

inline constexpr const char* kZeroUuidText = "00000000-0000-0000-0000-000000000000";

Uuid make_uuid_v7(int64_t unix_ms, uint64_t random_a, uint64_t random_b);
std::string to_string(const Uuid& uuid);
std::optional<Uuid> parse_uuid(std::string_view text);

}  // namespace qdt::impl
