#include "sim/campaign/shard_set.h"

#include <cassert>
#include <map>
#include <set>

#include "sim/campaign/campaign_jobs.h"

namespace qdt::sim {

namespace {

// "profile seed trace_hash" -> "profile seed": the seed's identity.
std::string seed_of(const std::string& line) {
  const size_t space = line.rfind(' ');
  return space == std::string::npos ? line : line.substr(0, space);
}

}  // namespace

ShardCoverage shard_coverage(const std::vector<nlohmann::json>& parts, const std::vector<std::string>& files) {
  assert(parts.size() == files.size());
  ShardCoverage out;
  std::map<std::string, size_t> owner;  // seed -> index of the first file holding it
  for (size_t i = 0; i < parts.size() && !out.duplicate_seed; ++i) {
    const nlohmann::json& hashes = parts[i]["seed_hashes"];
    for (size_t k = 0; k < hashes.size(); ++k) {
      const std::string seed = seed_of(hashes[k].get<std::string>());
      const auto [it, fresh] = owner.emplace(seed, i);
      if (fresh) continue;
      out.duplicate_seed = seed;
      out.duplicate_path = "/seed_hashes/" + std::to_string(k);
      out.first_file = files[it->second];
      out.second_file = files[i];
      break;
    }
  }
  // The split: only when every summary names an I/N shard with one N.
  std::set<uint64_t> named;
  uint64_t count = 0;
  for (const nlohmann::json& part : parts) {
    const auto it = part.find("shard");
    if (it == part.end() || !it->is_string()) return out;
    const std::optional<Shard> shard = parse_shard(it->get<std::string>());
    if (!shard || (count != 0 && shard->count != count)) return out;
    count = shard->count;
    named.insert(shard->index);
  }
  out.shard_count = count;
  out.missing_count = count - named.size();
  for (uint64_t i = 0; i < count && out.missing_shards.size() < ShardCoverage::kMissingListed; ++i) {
    if (!named.count(i)) out.missing_shards.push_back(i);
  }
  assert(out.missing_count >= out.missing_shards.size());
  return out;
}

}  // namespace qdt::sim
