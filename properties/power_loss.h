#pragma once
// What a power loss takes, derived from the configuration alone (never from
// what storage recovered): under synchronous off SQLite never syncs, so the
// database file it created never became durable and a power loss takes it
// whole, queue settings included; under full and normal the database is
// synced before a commit's journal goes, so every commit survives.
//
// The checkers judge a run whose storage was emptied as storage saw it: the
// commits before such a crash never happened for what comes after it.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "properties/history.h"

namespace qdt::properties {

bool loses_every_commit(const history::StorageCrash& crash);

// The event indexes before which storage was emptied: events [0, i) are
// lost for every event from i on. Ascending, unique; one may equal
// events.size() (a crash after the last event).
std::vector<size_t> storage_emptied_at(const history::History& history);

// Whether storage was emptied strictly after `after_ms` and strictly before
// `before_ms` (storage clock): a commit answered before the first and a
// probe received after the second never saw each other.
bool emptied_between(const history::History& history, int64_t after_ms, int64_t before_ms);

}  // namespace qdt::properties
