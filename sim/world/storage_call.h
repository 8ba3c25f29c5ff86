#pragma once
// What every StorageLink call does around its storage transaction
// (storage_link.cpp, storage_link_bundle.cpp).
#include <cstdint>
#include <optional>

#include "impl/storage/storage_types.h"
#include "sim/world/storage_gate.h"

namespace qdt::sim {

// Runs one storage call; a StorageError is returned, not thrown, so the
// caller leaves the handler before any fiber switch (an exception being
// handled must not cross one) and records the failure first.
template <typename Call>
std::optional<impl::StorageError> attempt(Call&& call) {
  try {
    call();
  } catch (const impl::StorageError& e) {
    return e;
  }
  return std::nullopt;
}

// The event the recorder appended last: the failed transaction's.
inline int64_t last_event(const StorageSide& side) { return static_cast<int64_t>(side.history.events.size()) - 1; }

inline impl::StorageError refused() {
  return impl::StorageError::connection_lost("storage connection lost: storage restarted");
}

}  // namespace qdt::sim
