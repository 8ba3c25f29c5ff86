#pragma once
// The catalogue of failure rules (docs/semantics.md §5): every failure a run
// reports names one rule, `property/rule` in kebab-case, that campaign
// triage groups by and pages show with the rule's explanation, written once
// here in the words of someone who runs the queue. A checker names its rule
// by enumerator, so a rule missing from the catalogue cannot compile
// (failure_rules.cpp checks the table against the enumeration at compile
// time). The scenario's own expectations and the generator take their ids
// from here too, so one catalogue explains every failure a run can report.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace qdt::properties {

// In catalogue order: grouped by property, properties in property_names() order.
enum class Rule : unsigned char {
  model_agreement_negative_option,
  model_agreement_probe_window,
  model_agreement_duplicate_answered_queued,
  model_agreement_queued_answered_duplicate,
  model_agreement_queued_at_wrong_offset,
  model_agreement_duplicate_of_wrong_offset,
  model_agreement_duplicate_without_original,
  model_agreement_fetch_wrong_id,
  model_agreement_fetch_failed_but_found,
  model_agreement_fetch_wrong_key,
  model_agreement_retention_deleted,
  model_agreement_purge_floor,
  model_agreement_purge_rows,
  model_agreement_ack_answer,
  model_agreement_read_answer,
  model_agreement_response_shape,
  model_agreement_answer_wrong_key,
  model_agreement_item_answer,

  no_double_write_key_twice_in_segment,
  no_double_write_stored_inside_window,

  no_false_duplicate_no_original_named,
  no_false_duplicate_frame_out_of_range,
  no_false_duplicate_dedup_off,
  no_false_duplicate_original_missing,
  no_false_duplicate_original_other_key,
  no_false_duplicate_original_purged,
  no_false_duplicate_original_expired,

  duplicate_id_not_smallest_offset,
  duplicate_id_fetch_wrong_id,
  duplicate_id_answered_wrong_id,

  partition_scope_probe_crossed_partitions,
  partition_scope_id_of_other_partition,
  partition_scope_id_of_other_key,
  partition_scope_id_not_stored,

  first_wins_follower_wrong_frame,
  first_wins_follower_answer,
  first_wins_key_twice_in_segment,
  first_wins_two_frames_per_key,
  first_wins_repeated_item_answer,

  nothing_written_on_duplicate_duplicate_wrote,
  nothing_written_on_duplicate_failed_wrote,

  offsets_last_offset,
  offsets_gap,
  offsets_overlap,
  offsets_created_at_decreased,

  dedup_off_probe_ran,
  dedup_off_duplicate_answered,
  dedup_off_probe_skipped,

  ack_resolution_unreadable_answer,
  ack_resolution_acked_without_row,
  ack_resolution_unresolvable_with_row,
  ack_resolution_wrong_offset,

  retry_convergence_key_twice_in_segment,
  retry_convergence_stored_again,
  retry_convergence_ids_diverged,

  window_expiry_expired_answered_duplicate,
  window_expiry_stale_id,

  cache_transparency_watermark_changed_answer,
  cache_transparency_watermark_hid_duplicate,

  retention_model_deleted_early,
  retention_model_left_behind,
  retention_model_purge_removed_kept_rows,
  retention_model_purge_left_rows,
  retention_model_purge_over_batch,
  retention_model_purge_more_flag,
  retention_model_txns_start,

  sidecar_floor_young_row_purged,

  client_visible_queued_not_readable,
  client_visible_queued_id_holds_other_key,
  client_visible_duplicate_names_no_original,
  client_visible_duplicate_id_unknown,
  client_visible_zero_id_unexplained,
  client_visible_readable_twice,
  client_visible_follower_record,

  liveness_response_missing_items,
  liveness_two_outcomes,
  liveness_no_outcome,
  liveness_still_waiting,
  liveness_item_not_final,
  liveness_stalled,
  liveness_lock_held_at_end,

  durability_survived_sync_off,
  durability_integrity,
  durability_lost_commit,
  durability_changed_commit,

  deadlock_free_deadlock,
  deadlock_free_abandoned_wait,

  // Not properties: a scenario's expect block (sim/scenario/run_expectations.h) and the generator.
  expectation_unanswered,
  expectation_response,
  expectation_stored,
  generator_invalid_scenario,
};

struct RuleEntry {
  Rule rule;
  std::string_view id;           // "model-agreement/duplicate-answered-queued"
  std::string_view explanation;  // what the broken rule means for a user of the queue
};

// Every rule, in enumeration order.
std::span<const RuleEntry> rule_catalogue();

const RuleEntry& rule_entry(Rule rule);
inline std::string_view rule_id(Rule rule) { return rule_entry(rule).id; }
inline std::string_view rule_explanation(Rule rule) { return rule_entry(rule).explanation; }
// The part before the slash: the property (or "expectation", "generator").
std::string_view rule_owner(Rule rule);

// The rule with `id`; nullopt for an id this build does not know (a summary
// written by another qdt version).
std::optional<Rule> find_rule(std::string_view id);

}  // namespace qdt::properties
