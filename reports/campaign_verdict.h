#pragma once
// A campaign's verdict as its page states it, read from the merged summary
// alone, so the page's word and the exit code never disagree: FAIL for a
// failed seed or fork, UNTESTED for a pass on nothing (a hollow property, a
// variant whose change no seed ran), FAIL for required points missed.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qdt::reports {

struct Verdict {
  std::string word;                  // PASS, FAIL or UNTESTED
  bool held = false;                 // PASS: the campaign exited 0
  std::vector<std::string> reasons;  // why it did not pass, when no seed failed
  std::string idle;                  // properties that judged no event (not a failure), "" when none
};

Verdict campaign_verdict(const nlohmann::json& summary);

}  // namespace qdt::reports
