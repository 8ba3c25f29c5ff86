#pragma once
// Reads log_ack_by_hash_v1's answer for one hash (docs/semantics.md §9.4), the
// same way for qdt's own SQL and a user's: {ok, acked, noopHashes,
// staleHashes, unresolvedHashes, error?}, hashes as 32 hex digits. A
// producer's ack holds no lease and its consumer row exists, so the contract
// says the call resolves the hash or names it unresolved: anything else is
// reported as a problem for the properties to judge, never skipped.
#include <string>

#include "impl/hash.h"

namespace qdt::impl::postgres {

struct AckAnswerRead {
  bool resolved = false;
  // Non-empty: the answer cannot be read, or is an error where the contract
  // says the call resolves; `resolved` is then false.
  std::string problem;
};

AckAnswerRead read_ack_answer(const std::string& answer, const Hash128& hash);

}  // namespace qdt::impl::postgres
