#include "properties/verdicts.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <span>
#include <variant>

#include "model/model.h"
#include "properties/failure_sink.h"
#include "properties/power_loss.h"

namespace qdt::properties {
namespace {

// More distinct ids than this for one offset means storage is already broken;
// the fetch checks report that, so the suffix sets stay small.
constexpr size_t kFetchIdsMax = 4;

}  // namespace

bool Expected::accepts(const history::ResponseItem& response) const {
  if (!statuses.contains(response.status)) return false;
  if (response.status == "error" || message_ids.contains(response.message_id)) return true;
  return (response.status == "queued" && queued_only_ids.contains(response.message_id)) ||
         (response.status == "duplicate" && duplicate_only_ids.contains(response.message_id));
}

std::set<std::string> Expected::ids_for(const std::string& status) const {
  std::set<std::string> ids = message_ids;
  if (status == "queued") ids.insert(queued_only_ids.begin(), queued_only_ids.end());
  if (status == "duplicate") ids.insert(duplicate_only_ids.begin(), duplicate_only_ids.end());
  return ids;
}

std::set<std::string> Expected::all_ids() const {
  std::set<std::string> ids = ids_for("queued");
  ids.insert(duplicate_only_ids.begin(), duplicate_only_ids.end());
  return ids;
}

std::string join_or(const std::set<std::string>& values) {
  std::string out;
  size_t i = 0;
  for (const std::string& v : values) {
    out += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + v;
    ++i;
  }
  return out;
}

std::string Expected::allowed() const {
  if (statuses.empty()) return "no answer";
  std::string out;
  for (const std::string& status : statuses) {
    out += (out.empty() ? "" : ", or ") + status;
    if (status == "error") continue;
    const std::set<std::string> ids = ids_for(status);
    // accepts() wants an id of message_ids: with none, the status alone is never right.
    out += ids.empty() ? std::string(" only with the original's id, which nothing read") : " with id " + join_or(ids);
  }
  return out;
}

std::string Verdicts::cite(size_t e, const std::string& own_step) const {
  if (!steps_) steps_.emplace(*history_);
  return event_label(*history_, *steps_, e, own_step);
}

std::vector<size_t> request_leaders(const history::RequestRecord& request) {
  std::vector<model::ItemKey> keys;
  keys.reserve(request.items.size());
  for (const history::ItemRecord& item : request.items) keys.push_back({item.queue, item.partition, item.transaction_id});
  return model::request_leaders(keys);
}

Verdicts::Verdicts(const history::History& history)
    : owned_keys_(std::make_unique<const KeyIds>(history)), keys_(owned_keys_.get()), history_(&history) {
  build(history);
}

Verdicts::Verdicts(const history::History& history, const KeyIds& keys) : keys_(&keys), history_(&history) {
  build(history);
}

Verdicts::Verdicts(const history::History& history, const KeyIds& keys, const MessageIds& messages)
    : keys_(&keys), history_(&history), messages_(&messages) {
  build(history);
}

void Verdicts::build(const history::History& history) {
  size_t frames = 0;  // an upper bound of the distinct frames: no rehash while indexing them
  for (const history::Event& event : history.events) {
    if (const auto* push = std::get_if<history::PushEvent>(&event)) frames += push->frames.size();
  }
  frames_.reserve(frames);
  outcomes_.reserve(frames);
  std::vector<int64_t> duplicate_of;  // per frame of the current push; one buffer for all
  const std::vector<size_t> emptied = storage_emptied_at(history);
  // The first event after storage was emptied behind event `e`; kNotLost when it never was after it.
  auto emptied_after = [&](size_t e) {
    const auto it = std::upper_bound(emptied.begin(), emptied.end(), e);
    return it == emptied.end() ? kNotLost : *it;
  };
  for (size_t e = 0; e < history.events.size(); ++e) {
    if (const auto* push = std::get_if<history::PushEvent>(&history.events[e])) {
      const std::span<const uint32_t> keys = keys_->frames(e);
      const std::span<const uint32_t> numbers = messages_ ? messages_->frames(e) : std::span<const uint32_t>();
      for (const history::FollowerRecord& follower : push->followers) {
        // A follower of a frame that does not exist, or of another key, has no
        // leader (first-wins reports the record).
        if (follower.frame >= push->frames.size()) continue;
        const history::FrameRecord& leader = push->frames[follower.frame];
        if (leader.transaction_id != follower.transaction_id) continue;
        const RequestKeyId leader_frame{leader.origin_request, keys[follower.frame]};
        followers_[{follower.request, {push->queue, push->partition, follower.transaction_id}}].push_back(
            Leader{leader_frame, leader.message_id, e});
      }
      duplicate_of.assign(push->frames.size(), -1);
      for (const auto& [index, offset] : push->duplicates) {
        if (index < duplicate_of.size()) duplicate_of[index] = offset;
      }
      for (size_t j = 0; j < push->frames.size(); ++j) {
        const history::FrameRecord& f = push->frames[j];
        const auto [frame, fresh] = frames_.insert(RequestKeyId{f.origin_request, keys[j]});
        if (fresh) outcomes_.emplace_back();
        std::pmr::vector<Outcome>& outcomes = outcomes_[frame];
        auto it = std::find_if(outcomes.begin(), outcomes.end(),
                               [&](const Outcome& o) {
                                 return messages_ != nullptr ? o.number == numbers[j] : o.message_id == f.message_id;
                               });
        if (it == outcomes.end()) it = outcomes.insert(outcomes.end(), Outcome{f.message_id});
        Outcome& o = *it;
        int64_t stored_offset = o.stored_offset;
        size_t stored_event = o.stored_event;
        if (push->failed) {
          o = Outcome{f.message_id, Kind::error, e, -1, push->broker};
        } else if (push->queued) {
          stored_offset = push->base_offset + static_cast<int64_t>(j);
          stored_event = e;
          o = Outcome{f.message_id, Kind::queued, e, stored_offset, push->broker};
        } else if (duplicate_of[j] >= 0 && duplicate_of[j] == stored_offset && emptied_after(stored_event) > e) {
          // Pushed again after a lost connection, the frame found its own
          // commit: queued where it landed (docs/semantics.md §2.4).
          o = Outcome{f.message_id, Kind::queued, stored_event, stored_offset, push->broker};
          // A loss after the last event comes before no fetch: nothing to read since.
          if (const size_t lost = emptied_after(e); lost < history.events.size()) o.lost_at = lost;
        } else if (duplicate_of[j] >= 0) {
          o = Outcome{f.message_id, Kind::duplicate, e, duplicate_of[j], push->broker};
        }  // else: survived a duplicate round; a later push decides it
        o.stored_offset = stored_offset;
        o.stored_event = stored_event;
        if (messages_ != nullptr) o.number = numbers[j];
      }
    } else if (const auto* fetch = std::get_if<history::FetchEvent>(&history.events[e])) {
      Fetches& f = fetches_[FetchKey{fetch->broker, fetch->queue, fetch->partition, fetch->offset}];
      f.event_indices.push_back(e);
      // A failed fetch could not read the segment: the duplicate's id is zero (docs/semantics.md §2.6).
      const bool read = !fetch->failed && fetch->found;
      f.suffix.push_back({Fetched{read ? fetch->message_id : std::string(history::kZeroUuid),
                                  read ? fetch->transaction_id : std::string()}});
    }
  }
  for (auto& [key, f] : fetches_) {
    for (size_t k = f.suffix.size(); k-- > 1;) {
      std::vector<Fetched>& here = f.suffix[k - 1];
      for (const Fetched& read : f.suffix[k]) {
        if (here.size() >= kFetchIdsMax) break;
        if (std::find(here.begin(), here.end(), read) == here.end()) here.push_back(read);
      }
    }
  }
}

std::vector<std::string> Verdicts::fetched_after(const Outcome& o, const history::ItemRecord& item) const {
  assert(o.kind == Kind::duplicate);
  return fetched_from(o, o.offset, o.event_index + 1, item);
}

std::vector<std::string> Verdicts::fetched_from(const Outcome& o, int64_t offset, size_t from,
                                                const history::ItemRecord& item) const {
  auto it = fetches_.find(FetchKey{o.broker, item.queue, item.partition, offset});
  if (it == fetches_.end()) return {};
  const Fetches& f = it->second;
  const auto pos = std::lower_bound(f.event_indices.begin(), f.event_indices.end(), from);
  if (pos == f.event_indices.end()) return {};
  std::vector<std::string> ids;
  for (const Fetched& read : f.suffix[static_cast<size_t>(pos - f.event_indices.begin())]) {
    const bool original = read.transaction_id.empty() || read.transaction_id == item.transaction_id;
    std::string id = original ? read.message_id : std::string(history::kZeroUuid);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(std::move(id));
  }
  return ids;
}

void Verdicts::add_frame_answer(const std::pmr::vector<Outcome>& outcomes, std::string_view message_id,
                                const history::ItemRecord& item, bool as_follower, const std::string& own_step,
                                Expected& x) const {
  for (const Outcome& o : outcomes) {
    if (!message_id.empty() && o.message_id != message_id) continue;
    if (!x.because.empty()) x.because += "; ";
    const std::string frame = "frame " + std::string(o.message_id);
    switch (o.kind) {
      case Kind::undecided:
        x.because += "storage never decided " + frame + " (a duplicate round held it back and it was not pushed again)";
        break;
      case Kind::queued:
        x.statuses.insert(as_follower ? "duplicate" : "queued");
        x.because +=
            frame + " was queued at offset " + std::to_string(o.offset) + " by " + cite(o.event_index, own_step);
        if (o.lost_at == kNotLost) {
          x.message_ids.emplace(o.message_id);
        } else {
          // Emptied after the push that found the commit: the fetch may have
          // read what came since, and answered a duplicate of it.
          (as_follower ? x.duplicate_only_ids : x.queued_only_ids).emplace(o.message_id);
          x.statuses.insert("duplicate");
          const std::vector<std::string> ids = fetched_from(o, o.offset, o.lost_at, item);
          x.duplicate_only_ids.insert(ids.begin(), ids.end());
          x.because += ", which a later push found again, but storage was emptied before " + cite(o.lost_at, own_step) +
                       (ids.empty() ? ", and no fetch of that offset since read an id"
                                    : ", and the fetches of that offset since read id " +
                                          join_or(std::set<std::string>(ids.begin(), ids.end())));
        }
        break;
      case Kind::duplicate: {
        x.statuses.insert("duplicate");
        const std::vector<std::string> ids = fetched_after(o, item);
        x.message_ids.insert(ids.begin(), ids.end());
        x.because += frame + " was a duplicate of offset " + std::to_string(o.offset) + " in " +
                     cite(o.event_index, own_step) +
                     (ids.empty() ? ", and no fetch of that offset after it read the original's id"
                                  : ", and the fetches of that offset after it read id " +
                                        join_or(std::set<std::string>(ids.begin(), ids.end())));
        break;
      }
      case Kind::error:
        x.statuses.insert("error");
        x.because += frame + " failed in storage in " + cite(o.event_index, own_step);
        break;
    }
  }
}

Expected Verdicts::follower_answer(const history::RequestRecord& request, const history::ItemRecord& item) const {
  Expected x;
  auto it = followers_.find({request.request, {item.queue, item.partition, item.transaction_id}});
  if (it == followers_.end()) {
    x.because = "request " + std::to_string(request.request) +
                " sent storage no frame of this key, and no push event records it as a layer-2 follower "
                "(a request fused behind another request's frame of the key), so no answer can be right";
    return x;
  }
  for (const Leader& leader : it->second) {
    const std::string prefix = "it is a layer-2 follower of request " + std::to_string(leader.frame.request) +
                               "'s frame, recorded in " + cite(leader.event_index, request.step) +
                               ", and answers what that frame answered: ";
    const std::optional<uint32_t> frame = frames_.find(leader.frame);
    if (!frame) {
      x.because += (x.because.empty() ? "" : "; ") + prefix + "storage never decided frame " +
                   std::string(leader.message_id);
      continue;
    }
    Expected leader_x;
    add_frame_answer(outcomes_[*frame], leader.message_id, item, true, request.step, leader_x);
    x.statuses.insert(leader_x.statuses.begin(), leader_x.statuses.end());
    x.message_ids.insert(leader_x.message_ids.begin(), leader_x.message_ids.end());
    x.queued_only_ids.insert(leader_x.queued_only_ids.begin(), leader_x.queued_only_ids.end());
    x.duplicate_only_ids.insert(leader_x.duplicate_only_ids.begin(), leader_x.duplicate_only_ids.end());
    x.because += (x.because.empty() ? "" : "; ") + prefix + leader_x.because;
  }
  return x;
}

const std::pmr::vector<Verdicts::Outcome>* Verdicts::frame_outcomes(const history::RequestRecord& request,
                                                                   size_t index) const {
  std::optional<uint32_t> key;
  if (keys_->holds(request)) {
    key = keys_->items(request)[index];
  } else {  // a record made outside the history (tests): found by its strings
    const history::ItemRecord& item = request.items[index];
    key = keys_->find(KeyView{item.queue, item.partition, item.transaction_id});
  }
  if (!key) return nullptr;
  const std::optional<uint32_t> frame = frames_.find(RequestKeyId{request.request, *key});
  return frame ? &outcomes_[*frame] : nullptr;
}

Expected Verdicts::own_answer(const history::RequestRecord& request, size_t index) const {
  const history::ItemRecord& item = request.items[index];
  const std::pmr::vector<Outcome>* outcomes = frame_outcomes(request, index);
  if (outcomes == nullptr) return follower_answer(request, item);
  Expected x;
  add_frame_answer(*outcomes, "", item, false, request.step, x);
  return x;
}

Expected Verdicts::expected(const history::RequestRecord& request, size_t index, size_t leader) const {
  assert(index < request.items.size() && leader <= index);
  Expected x = own_answer(request, leader);
  if (leader == index) return x;
  // A follower echoes its leader's final id; it is never itself written (docs/semantics.md §2.5).
  if (x.statuses.erase("queued") > 0) x.statuses.insert("duplicate");
  // A follower answers duplicate with what its leader may answer queued.
  x.duplicate_only_ids.insert(x.queued_only_ids.begin(), x.queued_only_ids.end());
  x.queued_only_ids.clear();
  x.because = "it repeats the key of item " + std::to_string(leader) +
              " and answers as that item does, duplicate for queued: " + x.because;
  return x;
}

bool Verdicts::accepts(const history::RequestRecord& request, size_t index, size_t leader,
                       const history::ResponseItem& response) const {
  assert(index < request.items.size() && leader <= index);
  const history::ItemRecord& item = request.items[leader];
  const std::pmr::vector<Outcome>* outcomes = frame_outcomes(request, leader);
  if (outcomes == nullptr) return expected(request, index, leader).accepts(response);  // a layer-2 follower
  // The statuses and ids own_answer collects, as expected() turns them for a
  // follower of the leader (queued -> duplicate); each only compared.
  bool status_ok = false;
  bool id_ok = response.status == "error";
  // The response's id number, when it is one of the history's responses:
  // compared with the frames' numbers instead of their strings.
  std::optional<uint32_t> number;
  const std::vector<history::ResponseItem>& responses = request.responses;
  if (messages_ != nullptr && keys_->holds(request) && !responses.empty() && &response >= responses.data() &&
      &response < responses.data() + responses.size()) {
    number = messages_->responses(static_cast<size_t>(&request - history_->requests.data()))[static_cast<size_t>(
        &response - responses.data())];
  }
  for (const Outcome& o : *outcomes) {
    const char* status = nullptr;
    switch (o.kind) {
      case Kind::undecided:
        continue;
      case Kind::queued:
        status = leader == index ? "queued" : "duplicate";
        if (o.lost_at == kNotLost) {
          id_ok = id_ok || (number ? o.number == *number : o.message_id == response.message_id);
          break;
        }
        // Storage may have lost the found commit: each id goes with its own status only (Expected).
        status_ok = status_ok || response.status == "duplicate";
        if (id_ok || response.status == "error") break;
        if (response.status == status) {
          id_ok = number ? o.number == *number : o.message_id == response.message_id;
        }
        if (!id_ok && response.status == "duplicate") {
          const std::vector<std::string> ids = fetched_from(o, o.offset, o.lost_at, item);
          id_ok = std::find(ids.begin(), ids.end(), response.message_id) != ids.end();
        }
        break;
      case Kind::duplicate: {
        status = "duplicate";
        if (id_ok) break;
        const std::vector<std::string> ids = fetched_after(o, item);
        id_ok = std::find(ids.begin(), ids.end(), response.message_id) != ids.end();
        break;
      }
      case Kind::error:
        status = "error";
        break;
    }
    status_ok = status_ok || response.status == status;
  }
  return status_ok && id_ok;
}

}  // namespace qdt::properties
