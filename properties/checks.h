#pragma once
// The individual properties of SPEC section 5, one per source file
// (check_<name>.cpp). checkers.cpp registers them by name; tests call them
// through check_property().
#include <vector>

#include "properties/checkers.h"
#include "properties/history.h"

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

}  // namespace qdt::properties
