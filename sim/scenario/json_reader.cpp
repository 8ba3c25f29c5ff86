#include "sim/scenario/json_reader.h"

#include "impl/broker/push_request.h"
#include "impl/queue_options.h"
#include "sim/base/json_input.h"
#include "sim/base/nearest_name.h"

namespace qdt::sim {

using json = nlohmann::json;

void JsonReader::only(const json& obj, const std::string& path, const char* const* first, const char* const* last) {
  if (!obj.is_object()) return;
  for (const auto& [key, value] : obj.items()) {
    bool ok = false;
    for (const char* const* a = first; a != last; ++a) ok = ok || key == *a;
    if (!ok) {
      fail(path + "/" + json_pointer_token(key), "unknown field" + did_you_mean(key, std::vector<std::string>(first, last)));
    }
  }
}

std::optional<int64_t> JsonReader::integer(const json& obj, const std::string& path, const char* key, int64_t lo,
                                           int64_t hi) {
  const auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_number_integer()) {
    fail(path + "/" + key, "expected an integer");
    return std::nullopt;
  }
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(hi)) {
    fail(path + "/" + key, "must be <= " + std::to_string(hi));
    return std::nullopt;
  }
  const int64_t v = it->get<int64_t>();
  if (v < lo || v > hi) {
    fail(path + "/" + key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                               std::to_string(v));
    return std::nullopt;
  }
  return v;
}

std::optional<std::string> JsonReader::string(const json& obj, const std::string& path, const char* key,
                                              bool required) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) fail(path + "/" + key, "required");
    return std::nullopt;
  }
  if (!it->is_string()) {
    fail(path + "/" + key, "expected a string");
    return std::nullopt;
  }
  return it->get<std::string>();
}

std::optional<std::string> JsonReader::name(const json& obj, const std::string& path, const char* key,
                                            bool required) {
  auto v = string(obj, path, key, required);
  if (v && (v->empty() || v->size() > impl::kMaxNameBytes)) {
    fail(path + "/" + key, "a name is 1-" + std::to_string(impl::kMaxNameBytes) + " bytes, got " +
                               std::to_string(v->size()));
    return std::nullopt;
  }
  // A transactionId reaches storage hashed; every other name as text.
  if (v && std::string_view(key) != "transactionId") note_sql_name(*v, path + "/" + key);
  return v;
}

std::optional<bool> JsonReader::boolean(const json& obj, const std::string& path, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_boolean()) {
    fail(path + "/" + key, "expected true or false");
    return std::nullopt;
  }
  return it->get<bool>();
}

std::optional<uint32_t> JsonReader::probability_ppm(const json& obj, const std::string& path, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > 1) {
    fail(path + "/" + key, "expected a probability in [0, 1]");
    return std::nullopt;
  }
  return static_cast<uint32_t>(it->get<double>() * 1'000'000 + 0.5);
}

bool JsonReader::latency(const json& obj, const std::string& path, int64_t& lo, int64_t& hi) {
  const auto it = obj.find("latency_ms");
  if (it == obj.end()) return true;
  const std::string where = path + "/latency_ms";
  if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number_integer() || !(*it)[1].is_number_integer()) {
    fail(where, "expected [min, max] in integer milliseconds");
    return false;
  }
  const int64_t a = (*it)[0].get<int64_t>();
  const int64_t b = (*it)[1].get<int64_t>();
  if (a < 0 || b < a || b > 60'000) {
    fail(where, "expected 0 <= min <= max <= 60000");
    return false;
  }
  lo = a;
  hi = b;
  return true;
}

bool JsonReader::queue_options(const json& options, const std::string& path) {
  const size_t errors_before = errors_.size();
  only(options, path, std::begin(impl::kQueueOptionNames), std::end(impl::kQueueOptionNames));
  if (errors_.size() != errors_before) return false;
  impl::QueueOptions scratch;
  const std::optional<std::string> error = impl::apply_options(options, path, scratch);
  if (!error) return true;
  const auto colon = error->find(": ");
  fail(error->substr(0, colon), colon == std::string::npos ? *error : error->substr(colon + 2));
  return false;
}

}  // namespace qdt::sim
