#pragma once
// Which seeds and shards a set of campaign summaries covers, for
// qdt check --merge. Shards run on other machines (GNU parallel, a Slurm
// job array, a Kubernetes Indexed Job) come back as files, and a file merged
// twice, or two shards given overlapping splits, would count seeds twice and
// still print a plausible campaign_digest. The merge refuses that, and names
// the shards of an I/N split that are absent, so a lost array task is seen.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace qdt::sim {

struct ShardCoverage {
  // Set when a seed ("profile seed") appears in two summaries, or twice in
  // one: the first such seed, the two files (equal when within one file)
  // and the JSON path of the second occurrence.
  std::optional<std::string> duplicate_seed;
  std::string duplicate_path;
  std::string first_file, second_file;
  // Every summary names its shard "I/N" with one N: the indexes of 0..N-1
  // that no summary names, and the first kMissingListed of them (zero and
  // empty when the split is whole, or not an I/N split, e.g. summaries that
  // were already merged).
  static constexpr size_t kMissingListed = 32;
  uint64_t shard_count = 0;
  uint64_t missing_count = 0;
  std::vector<uint64_t> missing_shards;
};

// `parts[i]` is a summary read by read_summary_text from `files[i]`.
ShardCoverage shard_coverage(const std::vector<nlohmann::json>& parts, const std::vector<std::string>& files);

}  // namespace qdt::sim
