// libFuzzer harness: the qdt check --merge reader (sim/campaign/campaign_merge.h) on
// any bytes. An accepted summary is merged and rendered as the campaign page
// of --merge --html, which read the fields the reader vouched for.
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <variant>

#include "reports/check_report.h"
#include "sim/campaign/campaign_merge.h"
#include "sim/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace qdt::sim;
  // The summary is printed on stdout: keep the fuzzer's output readable.
  std::cout.setstate(std::ios::badbit);
  const auto read = read_summary_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (const auto* error = std::get_if<LoadError>(&read)) {
    qdt::fuzz::check_path_and_reason(error->path, error->reason);
    return 0;
  }
  const nlohmann::json& part = std::get<nlohmann::json>(read);
  // Both the text summary (with its triage) and the JSON one, on every input:
  // a kept finding replays whichever of them it broke.
  nlohmann::json summary;
  for (const bool as_json : {false, true}) {
    CampaignOptions options;
    options.as_json = as_json;
    const Outcome outcome =
        report_campaign({part, part}, options, part.value("variant", std::string("none")), 2, 1.0, &summary);
    if (outcome == Outcome::bad_input) qdt::fuzz::contract_broken("merge outcome", "bad input on a checked summary");
  }
  const std::vector<nlohmann::json> timelines(summary["failures"].size());
  (void)qdt::reports::check_html(summary, timelines, "qdt check --merge fuzz.json", "", "gnuplot");
  return 0;
}
