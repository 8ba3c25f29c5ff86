#include "properties/verdicts.h"

#include <algorithm>
#include <cassert>
#include <variant>

namespace qdt::properties {
namespace {

// More distinct ids than this for one offset means storage is already broken;
// the fetch checks report that, so the suffix sets stay small.
constexpr size_t kFetchIdsMax = 4;

std::string join(const std::vector<std::string>& ids) {
  std::string out = "{";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + ids[i];
  return out + "}";
}

}  // namespace

bool Expected::accepts(const history::ResponseItem& response) const {
  if (!statuses.contains(response.status)) return false;
  return response.status == "error" || message_ids.contains(response.message_id);
}

Verdicts::Verdicts(const history::History& history) {
  for (size_t e = 0; e < history.events.size(); ++e) {
    if (const auto* push = std::get_if<history::PushEvent>(&history.events[e])) {
      std::vector<int64_t> duplicate_of(push->frames.size(), -1);
      for (const auto& [index, offset] : push->duplicates) {
        if (index < duplicate_of.size()) duplicate_of[index] = offset;
      }
      for (size_t j = 0; j < push->frames.size(); ++j) {
        const history::FrameRecord& f = push->frames[j];
        auto& outcomes = frames_[{f.origin_request, push->queue, push->partition, f.transaction_id}];
        auto it = std::find_if(outcomes.begin(), outcomes.end(),
                               [&](const Outcome& o) { return o.message_id == f.message_id; });
        if (it == outcomes.end()) it = outcomes.insert(outcomes.end(), Outcome{f.message_id});
        Outcome& o = *it;
        if (push->failed) {
          o = Outcome{f.message_id, Kind::error, e, -1, push->broker};
        } else if (push->queued) {
          o = Outcome{f.message_id, Kind::queued, e, push->base_offset + static_cast<int64_t>(j), push->broker};
        } else if (duplicate_of[j] >= 0) {
          o = Outcome{f.message_id, Kind::duplicate, e, duplicate_of[j], push->broker};
        }  // else: survived a duplicate round; a later push decides it
      }
    } else if (const auto* fetch = std::get_if<history::FetchEvent>(&history.events[e])) {
      Fetches& f = fetches_[{fetch->broker, fetch->queue, fetch->partition, fetch->offset}];
      f.event_indices.push_back(e);
      // A failed fetch could not read the segment: the duplicate's id is zero (SPEC 2.6).
      f.suffix.push_back({fetch->failed ? std::string(history::kZeroUuid) : fetch->message_id});
    }
  }
  for (auto& [key, f] : fetches_) {
    for (size_t k = f.suffix.size(); k-- > 1;) {
      std::vector<std::string>& here = f.suffix[k - 1];
      for (const std::string& id : f.suffix[k]) {
        if (here.size() >= kFetchIdsMax) break;
        if (std::find(here.begin(), here.end(), id) == here.end()) here.push_back(id);
      }
    }
  }
  for (const auto& [key, outcomes] : frames_) {
    const auto& [request, queue, partition, txn] = key;
    std::set<std::string>& ids = final_ids_[{queue, partition, txn}];
    for (const Outcome& o : outcomes) {
      if (o.kind == Kind::queued) ids.insert(o.message_id);
      if (o.kind == Kind::duplicate) {
        for (const std::string& id : fetched_after(o, queue, partition)) ids.insert(id);
      }
    }
  }
}

std::vector<std::string> Verdicts::fetched_after(const Outcome& o, const std::string& queue,
                                                 const std::string& partition) const {
  assert(o.kind == Kind::duplicate);
  auto it = fetches_.find({o.broker, queue, partition, o.offset});
  if (it == fetches_.end()) return {};
  const Fetches& f = it->second;
  const auto pos = std::upper_bound(f.event_indices.begin(), f.event_indices.end(), o.event_index);
  if (pos == f.event_indices.end()) return {};
  return f.suffix[static_cast<size_t>(pos - f.event_indices.begin())];
}

Expected Verdicts::own_answer(const history::RequestRecord& request, const history::ItemRecord& item) const {
  Expected x;
  auto it = frames_.find({request.request, item.queue, item.partition, item.transaction_id});
  if (it == frames_.end()) {
    // No frame of this request carries the key: it followed an equal frame of
    // another request fused into the same segment (SPEC 2.5, layer 2).
    x.statuses = {"duplicate", "error"};
    auto ids = final_ids_.find({item.queue, item.partition, item.transaction_id});
    if (ids != final_ids_.end()) x.message_ids = ids->second;
    x.message_ids.insert(history::kZeroUuid);
    x.because = "no frame of request " + std::to_string(request.request) +
                " carries the key, so it follows another request's frame of that key";
    return x;
  }
  for (const Outcome& o : it->second) {
    if (!x.because.empty()) x.because += "; ";
    x.because += "frame " + o.message_id;
    switch (o.kind) {
      case Kind::undecided:
        x.because += " never received a verdict";
        break;
      case Kind::queued:
        x.statuses.insert("queued");
        x.message_ids.insert(o.message_id);
        x.because += " queued at offset " + std::to_string(o.offset) + " (event " + std::to_string(o.event_index) + ")";
        break;
      case Kind::duplicate: {
        x.statuses.insert("duplicate");
        const std::vector<std::string> ids = fetched_after(o, item.queue, item.partition);
        x.message_ids.insert(ids.begin(), ids.end());
        x.because += " duplicate of offset " + std::to_string(o.offset) + " (event " +
                     std::to_string(o.event_index) + "), fetched ids after it " + join(ids);
        break;
      }
      case Kind::error:
        x.statuses.insert("error");
        x.because += " failed in storage (event " + std::to_string(o.event_index) + ")";
        break;
    }
  }
  return x;
}

Expected Verdicts::expected(const history::RequestRecord& request, size_t index, size_t leader) const {
  assert(index < request.items.size() && leader <= index);
  Expected x = own_answer(request, request.items[leader]);
  if (leader == index) return x;
  // A follower echoes its leader's final id; it is never itself written (SPEC 2.5).
  if (x.statuses.erase("queued") > 0) x.statuses.insert("duplicate");
  x.because = "follows item " + std::to_string(leader) + ": " + x.because;
  return x;
}

}  // namespace qdt::properties
