#pragma once
// The individual properties of docs/semantics.md §5, one per source file
// (check_<name>.cpp). checkers.cpp registers them by name; tests call them
// through check_property().
//
// All but liveness (which reads only requests and outcomes) and
// deadlock-free (which reads only the lock failures) also come as
// PassCheckers (make_<name>), which check_history runs together in one walk
// over the events sharing one HistoryIndex (properties/event_pass.h);
// check_<name> runs one alone.
#include <memory>
#include <vector>

#include "properties/checkers.h"
#include "properties/event_pass.h"
#include "properties/history.h"
#include "properties/history_index.h"

namespace qdt::properties {

std::vector<Failure> check_model_agreement(const history::History& history);
std::vector<Failure> check_no_double_write(const history::History& history);
std::vector<Failure> check_no_false_duplicate(const history::History& history);
std::vector<Failure> check_duplicate_id(const history::History& history);
std::vector<Failure> check_partition_scope(const history::History& history);
std::vector<Failure> check_first_wins(const history::History& history);
std::vector<Failure> check_nothing_written_on_duplicate(const history::History& history);
std::vector<Failure> check_offsets(const history::History& history);
std::vector<Failure> check_dedup_off(const history::History& history);
std::vector<Failure> check_ack_resolution(const history::History& history);
std::vector<Failure> check_retry_convergence(const history::History& history);
std::vector<Failure> check_window_expiry(const history::History& history);
std::vector<Failure> check_cache_transparency(const history::History& history);
std::vector<Failure> check_retention_model(const history::History& history);
std::vector<Failure> check_sidecar_floor(const history::History& history);
std::vector<Failure> check_client_visible(const history::History& history);
std::vector<Failure> check_liveness(const history::History& history);
std::vector<Failure> check_durability(const history::History& history);
std::vector<Failure> check_deadlock_free(const history::History& history);

std::unique_ptr<PassChecker> make_model_agreement(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_no_double_write(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_no_false_duplicate(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_duplicate_id(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_partition_scope(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_first_wins(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_nothing_written_on_duplicate(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_offsets(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_dedup_off(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_ack_resolution(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_retry_convergence(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_window_expiry(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_cache_transparency(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_retention_model(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_sidecar_floor(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_client_visible(const HistoryIndex& index);
std::unique_ptr<PassChecker> make_durability(const HistoryIndex& index);

}  // namespace qdt::properties
