#pragma once
// Checked access to scenario JSON: every read verifies type and range and
// records an error with its path instead of throwing, so no input can crash
// the loader (docs/semantics.md §4: bad input gets a clear error).
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/load_error.h"

namespace qdt::sim {

class JsonReader {
 public:
  JsonReader(const std::string& file, std::vector<LoadError>& errors) : file_(file), errors_(errors) {}

  void fail(const std::string& path, const std::string& reason) { errors_.push_back({file_, path, reason}); }

  // Fails every key of `obj` not in `allowed`, in the object's key order,
  // naming the nearest allowed key when one is near.
  void only(const nlohmann::json& obj, const std::string& path, std::initializer_list<const char*> allowed) {
    only(obj, path, allowed.begin(), allowed.end());
  }
  void only(const nlohmann::json& obj, const std::string& path, const char* const* first, const char* const* last);

  std::optional<int64_t> integer(const nlohmann::json& obj, const std::string& path, const char* key, int64_t lo,
                                 int64_t hi);
  std::optional<std::string> string(const nlohmann::json& obj, const std::string& path, const char* key,
                                    bool required);
  // A queue, partition, consumer group or transactionId: one rule wherever a
  // name appears, the one the broker applies to a push item.
  std::optional<std::string> name(const nlohmann::json& obj, const std::string& path, const char* key,
                                  bool required);
  std::optional<bool> boolean(const nlohmann::json& obj, const std::string& path, const char* key);
  std::optional<uint32_t> probability_ppm(const nlohmann::json& obj, const std::string& path, const char* key);
  // `latency_ms` as [min, max]; false (and an error) when present but malformed.
  bool latency(const nlohmann::json& obj, const std::string& path, int64_t& lo, int64_t& hi);

  // Queue options as impl::apply_options reads them; an unknown one is
  // reported as `only` reports fields. False when refused.
  bool queue_options(const nlohmann::json& options, const std::string& path);

  // Notes a queue, partition or consumer group name read at `path`: the
  // first one holding a NUL is kept, for the engines whose text cannot.
  void note_sql_name(const std::string& name, const std::string& path) {
    if (nul_name_path_.empty() && name.find('\0') != std::string::npos) nul_name_path_ = path;
  }
  // The JSON path of the first such name; empty when there is none.
  const std::string& nul_name_path() const { return nul_name_path_; }

 private:
  const std::string& file_;
  std::vector<LoadError>& errors_;
  std::string nul_name_path_;
};

}  // namespace qdt::sim
