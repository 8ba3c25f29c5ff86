#pragma once
// Reads a scenario's steps and its `expect` block: the fields every step has
// ("op", "id"), then its kind's own through the kind's reader
// (sim/scenario/step_kinds.h); afterwards the checks over the whole script
// (the brokers it names, its size with repeats unrolled).
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/json_reader.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {

struct StepKind;

class StepLoader {
 public:
  explicit StepLoader(JsonReader& reader) : r_(reader) {}

  JsonReader& reader() { return r_; }

  // world.storage.path names a file (crash_storage needs one); set before the steps are read.
  void set_file_storage(bool file_storage) { file_storage_ = file_storage; }
  bool file_storage() const { return file_storage_; }
  // world.storage.synchronous is "off": a power loss takes every commit.
  void set_synchronous_off(bool off) { synchronous_off_ = off; }
  bool synchronous_off() const { return synchronous_off_; }

  // The script's top-level steps.
  void steps(const nlohmann::json& list, const std::string& path, std::vector<Step>& out);
  // A composite step's required "steps", read as its children; `repeated`: they run many times.
  void children(const nlohmann::json& j, const std::string& path, Step& step, bool repeated);
  // True while reading the children of a composite step.
  bool nested() const { return nesting_ > 0; }

  // A step's required `broker`, checked against world.brokers after loading.
  void required_broker(const nlohmann::json& j, const std::string& path, Step& step);
  // A broker a step names at `path`, checked against world.brokers after loading.
  void use_broker(const std::string& path, uint32_t broker) { brokers_used_.emplace_back(path, broker); }

  // The kind of the step with this id, or null.
  const StepKind* kind_of(const std::string& id) const;
  // A push step's item count by id, -1 when its items are not an array.
  std::map<std::string, int64_t>& item_counts() { return item_counts_; }

  void expect(const nlohmann::json& e, Scenario& s);
  void check_brokers(const Scenario& s);
  void check_run_size(const Scenario& s);

 private:
  bool step(const nlohmann::json& j, const std::string& path, Step& s);
  void steps_of(const nlohmann::json& list, const std::string& path, std::vector<Step>& out);
  void stored(const nlohmann::json& value, const std::string& path, Scenario& s);

  JsonReader& r_;
  std::map<std::string, const StepKind*> ids_;
  int nesting_ = 0;       // > 0 while loading the children of a composite step
  int repeat_depth_ = 0;  // > 0 while loading the children of a repeat
  bool file_storage_ = false;
  bool synchronous_off_ = false;
  std::map<std::string, int64_t> item_counts_;
  std::vector<std::pair<std::string, uint32_t>> brokers_used_;
};

}  // namespace qdt::sim
