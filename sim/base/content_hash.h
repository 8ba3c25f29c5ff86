#pragma once
// The xxh3-128 of some bytes as 32 lower-case hex digits (high half first):
// how qdt names a content it must recognise again (a journal part's
// checksum, the SQL or cache a campaign ran), never a secret.
#include <string>
#include <string_view>

namespace qdt::sim {

std::string content_hash_hex(std::string_view bytes);

// Whether `text` is 32 lower-case hex digits, as content_hash_hex writes.
bool is_content_hash_hex(std::string_view text);

}  // namespace qdt::sim
