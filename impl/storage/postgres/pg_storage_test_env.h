#pragma once
// What the PgStorage tests share: one PgBackend per test process (its own
// throwaway cluster), and frames and segments as the broker makes them.
#include <cstdint>
#include <string>
#include <vector>

#include "impl/storage/postgres/pg_backend.h"
#include "impl/storage/storage_types.h"

namespace qdt::impl::postgres::testing {

PgBackend& backend();

// Unix ms used as the start of virtual time.
inline constexpr int64_t kT0Ms = 1'700'000'000'000;

Frame frame(const std::string& transaction_id, uint64_t n);
SegmentPush segment(const std::vector<std::string>& transaction_ids, const std::string& queue = "q",
                    const std::string& partition = "p", int64_t p_verified = -1, int64_t window_assumed = 3600);

}  // namespace qdt::impl::postgres::testing
