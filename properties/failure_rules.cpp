#include "properties/failure_rules.h"

#include <cassert>
#include <iterator>

namespace qdt::properties {
namespace {

using enum Rule;

// One line each, said once: what breaking the rule means for whoever
// produces to or consumes from the queue. The detail of a failure says
// which messages and offsets; this says why a user cares.
constexpr RuleEntry kCatalogue[] = {
    {model_agreement_negative_option, "model-agreement/negative-option",
     "A queue was configured with a negative window or retention: no setting means that, so every later answer on "
     "the queue is undefined."},
    {model_agreement_probe_window, "model-agreement/probe-window",
     "Storage searched for duplicates over another window than the queue's: retries near the window's edge are "
     "stored twice or dropped."},
    {model_agreement_duplicate_answered_queued, "model-agreement/duplicate-answered-queued",
     "A producer's retry (a repeat of a transactionId inside the window) was stored as a second message: consumers "
     "read it twice."},
    {model_agreement_queued_answered_duplicate, "model-agreement/queued-answered-duplicate",
     "A new message was answered duplicate and not stored: the producer believes it was delivered, consumers never "
     "see it."},
    {model_agreement_queued_at_wrong_offset, "model-agreement/queued-at-wrong-offset",
     "A new message was stored at another offset than the next free one: consumers reading by offset skip messages "
     "or read them out of order."},
    {model_agreement_duplicate_of_wrong_offset, "model-agreement/duplicate-of-wrong-offset",
     "A retry was recognised as a duplicate, but of another message than its original: the producer is told an id "
     "that is not its message's."},
    {model_agreement_duplicate_without_original, "model-agreement/duplicate-without-original",
     "A message was answered duplicate though no original of its key is stored inside the window: it was dropped "
     "and is lost."},
    {model_agreement_fetch_wrong_id, "model-agreement/fetch-wrong-id",
     "Looking up a duplicate's original returned another id than the stored message's: the producer is told the "
     "wrong message id for its retry."},
    {model_agreement_fetch_failed_but_found, "model-agreement/fetch-failed-but-found",
     "A lookup of a duplicate's original failed yet claims it found the message: the broker answers with an id it "
     "never read."},
    {model_agreement_fetch_wrong_key, "model-agreement/fetch-wrong-key",
     "Looking up a duplicate's original returned a message with another transactionId: the retry is matched to "
     "someone else's message."},
    {model_agreement_retention_deleted, "model-agreement/retention-deleted",
     "Retention deleted messages the queue's settings keep, or kept ones they delete: consumers lose messages "
     "early, or storage keeps what should be gone."},
    {model_agreement_purge_floor, "model-agreement/purge-floor",
     "The clean-up of dedup entries used another age limit than the queue's settings give: a retry of a cleaned-up "
     "key is stored twice."},
    {model_agreement_purge_rows, "model-agreement/purge-rows",
     "The clean-up removed dedup entries that must stay, or kept ones that must go: a later retry of those keys is "
     "stored twice, or old keys keep being duplicates."},
    {model_agreement_ack_answer, "model-agreement/ack-answer",
     "An ack by transactionId resolved to another message (or to none) than the stored one: the consumer commits "
     "the wrong offset."},
    {model_agreement_read_answer, "model-agreement/read-answer",
     "A consumer's read returned other messages than storage holds at those offsets: consumers miss messages or "
     "read wrong ones."},
    {model_agreement_response_shape, "model-agreement/response-shape",
     "A push response did not carry one answer per item: some producers never learn what happened to their "
     "messages."},
    {model_agreement_answer_wrong_key, "model-agreement/answer-wrong-key",
     "An item's answer names another transactionId than the item sent: the producer matches the answer to the "
     "wrong message."},
    {model_agreement_item_answer, "model-agreement/item-answer",
     "A producer was told a status or id for an item that nothing storage did can explain: the producer's record "
     "of its message is wrong."},

    {no_double_write_key_twice_in_segment, "no-double-write/key-twice-in-segment",
     "One write stored the same transactionId twice: consumers read that message twice."},
    {no_double_write_stored_inside_window, "no-double-write/stored-inside-window",
     "A message was stored again while its original was still inside the dedup window: consumers read it twice."},

    {no_false_duplicate_no_original_named, "no-false-duplicate/no-original-named",
     "A push was answered duplicate without naming the message it repeats: the producer gets no id, and the message "
     "may be lost."},
    {no_false_duplicate_frame_out_of_range, "no-false-duplicate/frame-out-of-range",
     "Storage answered duplicate for a message the write did not contain: the answer does not match the request."},
    {no_false_duplicate_dedup_off, "no-false-duplicate/dedup-off",
     "A message on a queue with deduplication off (window 0) was answered duplicate: it was dropped, not stored."},
    {no_false_duplicate_original_missing, "no-false-duplicate/original-missing",
     "A message was answered duplicate of an offset where nothing was stored: it was dropped, not stored."},
    {no_false_duplicate_original_other_key, "no-false-duplicate/original-other-key",
     "A message was answered duplicate of a message with another transactionId: it was dropped, not stored."},
    {no_false_duplicate_original_purged, "no-false-duplicate/original-purged",
     "A message was answered duplicate of one whose dedup entry was already cleaned up: it was dropped, not stored."},
    {no_false_duplicate_original_expired, "no-false-duplicate/original-expired",
     "A message was answered duplicate of one older than the window: a repeat after the window is a new message, "
     "so this one was lost."},

    {duplicate_id_not_smallest_offset, "duplicate-id/not-smallest-offset",
     "A retry was answered with the id of a later copy, not of the original (the smallest offset in the window): "
     "producers of one key are told different ids."},
    {duplicate_id_fetch_wrong_id, "duplicate-id/fetch-wrong-id",
     "Looking up a duplicate's original returned the wrong id, or none while the message is still there: the "
     "producer is told an id no consumer will see."},
    {duplicate_id_answered_wrong_id, "duplicate-id/answered-wrong-id",
     "A retry's answer names another id than its original's: the producer records a message id that is not the "
     "stored message's."},

    {partition_scope_probe_crossed_partitions, "partition-scope/probe-crossed-partitions",
     "A message was taken for a duplicate of one in another partition: deduplication leaked across partitions and "
     "the message was lost."},
    {partition_scope_id_of_other_partition, "partition-scope/id-of-other-partition",
     "An id answered for one partition belongs to a message of another: producers of different partitions share "
     "one message id."},
    {partition_scope_id_of_other_key, "partition-scope/id-of-other-key",
     "A producer was answered the id of a message with another transactionId: it records someone else's message as "
     "its own."},
    {partition_scope_id_not_stored, "partition-scope/id-not-stored",
     "A duplicate's answer names an id no stored message has: the producer records a message that does not exist."},

    {first_wins_follower_wrong_frame, "first-wins/follower-wrong-frame",
     "A request merged behind another's message (a follower) was recorded against a message of another key: its "
     "answer comes from the wrong message."},
    {first_wins_follower_answer, "first-wins/follower-answer",
     "A request merged behind another's message of the same key was answered otherwise than the message it "
     "follows: the two producers disagree on what was stored."},
    {first_wins_key_twice_in_segment, "first-wins/key-twice-in-segment",
     "One write held two copies of one transactionId: the first must win and the others follow it, or consumers "
     "read the message twice."},
    {first_wins_two_frames_per_key, "first-wins/two-frames-per-key",
     "One request put two different messages of one transactionId into storage: a retry must push the same message "
     "again, never a new one."},
    {first_wins_repeated_item_answer, "first-wins/repeated-item-answer",
     "Two items of one request with the same transactionId were answered apart: the repeat must be answered "
     "duplicate of the first."},

    {nothing_written_on_duplicate_duplicate_wrote, "nothing-written-on-duplicate/duplicate-wrote",
     "A push answered duplicate still changed storage: a message reported as not stored left offsets or rows "
     "behind."},
    {nothing_written_on_duplicate_failed_wrote, "nothing-written-on-duplicate/failed-wrote",
     "A push that failed left changes in storage: a write the producer was told failed is partly visible."},

    {offsets_last_offset, "offsets/last-offset",
     "Storage's highest offset disagrees with the messages queued so far: offsets no longer count the messages."},
    {offsets_gap, "offsets/gap",
     "Offsets were skipped: consumers reading by offset wait for messages that never come."},
    {offsets_overlap, "offsets/overlap",
     "A message was given an offset already in use: one of the two messages is hidden from consumers."},
    {offsets_created_at_decreased, "offsets/created-at-decreased",
     "A later offset carries an earlier time: retention and the dedup window see messages out of order."},

    {dedup_off_probe_ran, "dedup-off/probe-ran",
     "Storage searched for duplicates on a queue with deduplication off (window 0): work no push asked for."},
    {dedup_off_duplicate_answered, "dedup-off/duplicate-answered",
     "A message on a queue with deduplication off (window 0) was answered duplicate: it was dropped instead of "
     "stored."},
    {dedup_off_probe_skipped, "dedup-off/probe-skipped",
     "Storage skipped the duplicate search where an original could be: a retry may be stored twice."},

    {ack_resolution_unreadable_answer, "ack-resolution/unreadable-answer",
     "An ack's answer could not be read: the consumer cannot tell whether its commit happened."},
    {ack_resolution_acked_without_row, "ack-resolution/acked-without-row",
     "An ack resolved though no dedup entry holds its transactionId: the consumer commits a message storage cannot "
     "identify."},
    {ack_resolution_unresolvable_with_row, "ack-resolution/unresolvable-with-row",
     "An ack was answered unresolvable though a dedup entry holds its transactionId: a consumer's commit is refused "
     "for a message that is there."},
    {ack_resolution_wrong_offset, "ack-resolution/wrong-offset",
     "An ack resolved to another offset or id than the key's original: the consumer commits the wrong message."},

    {retry_convergence_key_twice_in_segment, "retry-convergence/key-twice-in-segment",
     "One push's retries put its message twice into one write: consumers read it twice."},
    {retry_convergence_stored_again, "retry-convergence/stored-again",
     "A producer's retry was stored as a second message while the first was still in the window: consumers read "
     "it twice."},
    {retry_convergence_ids_diverged, "retry-convergence/ids-diverged",
     "A producer's retries of one message were answered different ids: it cannot know which message is its own."},

    {window_expiry_expired_answered_duplicate, "window-expiry/expired-answered-duplicate",
     "A repeat sent after the window was answered duplicate: past the window a repeat is a new message, so this one "
     "was lost."},
    {window_expiry_stale_id, "window-expiry/stale-id",
     "A repeat stored as new after the window was not answered queued with a fresh id: the producer records an old "
     "message as its own."},

    {cache_transparency_watermark_changed_answer, "cache-transparency/watermark-changed-answer",
     "The broker's watermark (offsets it already checked) changed storage's answer: the cache may save work, never "
     "change whether a message is a duplicate."},
    {cache_transparency_watermark_hid_duplicate, "cache-transparency/watermark-hid-duplicate",
     "The broker's watermark made storage skip offsets that held an original: a retry may be stored twice."},

    {retention_model_deleted_early, "retention-model/deleted-early",
     "Retention deleted messages the queue's settings still keep: consumers lose messages."},
    {retention_model_left_behind, "retention-model/left-behind",
     "Retention left messages the queue's settings delete: storage keeps what should be gone."},
    {retention_model_purge_removed_kept_rows, "retention-model/purge-removed-kept-rows",
     "A clean-up step removed dedup entries the settings keep: a later retry of those keys is stored twice."},
    {retention_model_purge_left_rows, "retention-model/purge-left-rows",
     "A clean-up step kept dedup entries the settings remove: storage grows and old keys stay duplicates."},
    {retention_model_purge_over_batch, "retention-model/purge-over-batch",
     "A clean-up step removed more rows than its batch: it holds the lock longer than pushes may wait."},
    {retention_model_purge_more_flag, "retention-model/purge-more-flag",
     "A clean-up step said wrongly whether rows are left to remove: the clean-up stops early or runs for nothing."},
    {retention_model_txns_start, "retention-model/txns-start",
     "After a clean-up step, txns_start (the first offset that still has dedup entries) is wrong: the duplicate "
     "search starts in the wrong place."},

    {sidecar_floor_young_row_purged, "sidecar-floor/young-row-purged",
     "A dedup entry younger than its minimum age was cleaned up: a retry of that key arriving now is stored twice."},

    {client_visible_queued_not_readable, "client-visible/queued-not-readable",
     "A message answered queued is not in the final read: the producer was told it was stored, consumers never see "
     "it."},
    {client_visible_queued_id_holds_other_key, "client-visible/queued-id-holds-other-key",
     "The id a producer was answered queued holds another transactionId when read: its message id points at "
     "someone else's message."},
    {client_visible_duplicate_names_no_original, "client-visible/duplicate-names-no-original",
     "A duplicate's answer names a message that cannot be its original (another key, or outside the window): the "
     "producer records the wrong message."},
    {client_visible_duplicate_id_unknown, "client-visible/duplicate-id-unknown",
     "A duplicate's answer names an id no producer was given and no read shows: the producer records a message "
     "nobody can see."},
    {client_visible_zero_id_unexplained, "client-visible/zero-id-unexplained",
     "A duplicate was answered the zero id (its original is gone) though no original can be gone: the message may "
     "be lost."},
    {client_visible_readable_twice, "client-visible/readable-twice",
     "One transactionId is readable twice within a window: consumers read the message twice."},
    {client_visible_follower_record, "client-visible/follower-record",
     "A merged request (a follower) is recorded behind a send that never carried its key: its answer cannot be "
     "traced to what any producer sent."},

    {liveness_response_missing_items, "liveness/response-missing-items",
     "A delivered request was answered for fewer items than it sent: some producers never learn what happened to "
     "their messages."},
    {liveness_two_outcomes, "liveness/two-outcomes",
     "One push reported two outcomes: the producer's application is told twice, perhaps differently."},
    {liveness_no_outcome, "liveness/no-outcome",
     "A push was sent but its producer never reported an outcome: the application waits for ever."},
    {liveness_still_waiting, "liveness/still-waiting",
     "A push was still waiting when the run ended, with the faults over and every timeout passed: the producer "
     "hangs."},
    {liveness_item_not_final, "liveness/item-not-final",
     "An item ended without a final status (queued, duplicate, error, timeout): the application never gets an "
     "answer for it."},
    {liveness_stalled, "liveness/stalled",
     "Requests waited inside a broker for a wake nobody would send: those producers hang until they time out."},
    {liveness_lock_held_at_end, "liveness/lock-held-at-end",
     "A storage connection still held a transaction, and its lock, at the end: every later push on that partition "
     "waits."},

    {durability_survived_sync_off, "durability/survived-sync-off",
     "Messages came back after a power loss under synchronous off, where nothing is ever synced: storage claims a "
     "durability it does not have."},
    {durability_integrity, "durability/integrity",
     "The database failed its integrity check after a power loss: storage is corrupt."},
    {durability_lost_commit, "durability/lost-commit",
     "A committed message is gone after a power loss: the producer was told it was stored, consumers never see it."},
    {durability_changed_commit, "durability/changed-commit",
     "After a power loss an offset holds another message than the one committed there: consumers read the wrong "
     "message."},

    {deadlock_free_deadlock, "deadlock-free/deadlock",
     "A storage transaction was aborted to break a deadlock: the push or ack fails, and its producer retries or "
     "gives up."},
    {deadlock_free_abandoned_wait, "deadlock-free/abandoned-wait",
     "A storage transaction gave up waiting for a lock: the push or ack fails though nothing was wrong with it."},

    {expectation_unanswered, "expectation/unanswered",
     "A step the scenario expects an answer from never answered."},
    {expectation_response, "expectation/response",
     "A step answered otherwise than the scenario's expect block says."},
    {expectation_stored, "expectation/stored",
     "A partition holds another number of messages at the end than the scenario's expect_stored says."},
    {generator_invalid_scenario, "generator/invalid-scenario",
     "The generator wrote a scenario that does not load: a bug in qdt's generator, not in the queue."},
};

constexpr bool is_kebab(std::string_view s) {
  if (s.empty() || s.front() == '-' || s.back() == '-') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '-' && s[i - 1] != '-');
    if (!ok) return false;
  }
  return true;
}

// Every enumerator has its entry, at its own place, with an id
// "owner/name" in kebab-case, unique, and an explanation.
constexpr bool well_formed() {
  for (size_t i = 0; i < std::size(kCatalogue); ++i) {
    const RuleEntry& r = kCatalogue[i];
    if (static_cast<size_t>(r.rule) != i || r.explanation.empty()) return false;
    const size_t slash = r.id.find('/');
    if (slash == std::string_view::npos || !is_kebab(r.id.substr(0, slash)) || !is_kebab(r.id.substr(slash + 1))) {
      return false;
    }
    for (size_t j = 0; j < i; ++j) {
      if (kCatalogue[j].id == r.id) return false;
    }
  }
  return true;
}

static_assert(std::size(kCatalogue) == static_cast<size_t>(generator_invalid_scenario) + 1,
              "every Rule has one catalogue entry");
static_assert(well_formed(), "catalogue entries in enumeration order, ids owner/name in kebab-case, unique, explained");

}  // namespace

std::span<const RuleEntry> rule_catalogue() { return kCatalogue; }

const RuleEntry& rule_entry(Rule rule) {
  const auto i = static_cast<size_t>(rule);
  assert(i < std::size(kCatalogue));
  return kCatalogue[i];
}

std::string_view rule_owner(Rule rule) {
  const std::string_view id = rule_id(rule);
  return id.substr(0, id.find('/'));
}

std::optional<Rule> find_rule(std::string_view id) {
  for (const RuleEntry& r : kCatalogue) {
    if (r.id == id) return r.rule;
  }
  return std::nullopt;
}

}  // namespace qdt::properties
